"""The pairwise judge: a VLM (or the offline stand-in) compares a candidate painting with graded references.

It lives in shared because two parts must judge alike: the environment's judge term during training and
studio's `pool calibrate`, which measures how often the policy beats each reference.
"""

"""GRPO training of a watercolour-painting policy: the parts watercolour_grpo.py puts together."""

"""The pairwise judge: a VLM compares a candidate painting with graded references."""

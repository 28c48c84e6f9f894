"""Deploying watercolour-rl: the env and scorer Spaces, and the recipe's training run on Hugging Face Jobs."""

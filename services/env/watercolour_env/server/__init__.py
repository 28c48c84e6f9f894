"""The OpenEnv server of the watercolour environment."""

"""`watercolour eval`: two policies compared as painters on held-out subjects (docs/evaluation.md)."""

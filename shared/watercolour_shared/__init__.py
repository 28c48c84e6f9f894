"""The one package every watercolour-rl service and the trainer import."""

"""The gate: static analysis of the sketch's source, plus what the render reports."""

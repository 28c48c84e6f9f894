"""The run gallery: reward curves, the film step by step, comparisons, the evolution strip, the checks."""

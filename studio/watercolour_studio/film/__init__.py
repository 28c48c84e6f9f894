"""Reading a run directory (docs/run-directory.md) while the trainer may still be writing it."""

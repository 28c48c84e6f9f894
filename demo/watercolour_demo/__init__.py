"""Demo material for watercolour-rl: sketches made without a model, for corpora, benchmarks and tests."""

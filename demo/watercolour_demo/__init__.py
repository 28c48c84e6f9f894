"""The whole loop on one machine: a tiny policy warm-started on generated sketches, GRPO against the local stack."""

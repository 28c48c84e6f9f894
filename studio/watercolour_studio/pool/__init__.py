"""The reference-pool workbench: generate paintings of a subject, grade them, pack them as a pool, calibrate it."""

"""Headless Chromium rendering of p5.brush sketches."""

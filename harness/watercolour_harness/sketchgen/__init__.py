"""Procedural watercolour sketches: seeded p5.brush code that uses only the allowed methods
(the environment's data/allowlist.json).

    from watercolour_harness.sketchgen import generate_sketch
    code = generate_sketch("a sunflower", seed=3)

For a policy's training corpus, benchmark load and test material; `python -m
watercolour_harness.sketchgen --help` writes a folder of them.
"""

from watercolour_harness.sketchgen.generate import KINDS, TITLE, corpus, generate_sketch, subject_kind
from watercolour_harness.sketchgen.layouts import BLOOM_LAYOUTS, LEAF_LAYOUTS, STEM_LAYOUTS
from watercolour_harness.sketchgen.palettes import PALETTES
from watercolour_harness.sketchgen.reply import as_reply

__all__ = [
    "BLOOM_LAYOUTS",
    "KINDS",
    "LEAF_LAYOUTS",
    "PALETTES",
    "STEM_LAYOUTS",
    "TITLE",
    "as_reply",
    "corpus",
    "generate_sketch",
    "subject_kind",
]

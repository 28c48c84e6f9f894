"""The warm start's subjects: half its sketches paint the subjects GRPO trains on, in turn, and the other half
a subject drawn from templates, so that the tiny policy meets many prompts and paints whatever it is asked
(the held-out subjects of its evaluation among them) instead of breaking on a prompt it never saw.

Whatever the words, the generator paints a flower (a hibiscus where the subject says so), in the palette a
colour word asks for. Held-out subjects are never drawn: the shipped set's, and those of a closing eval
the caller names (tests/demo/test_corpus_subjects.py).
"""

from __future__ import annotations

import re
from random import Random

from watercolour_harness.sketchgen import PALETTES
from watercolour_shared.subjects import EVAL_SUBJECTS_FILE, load_subjects, normal_subject

COLOURS = sorted({word for palette in PALETTES.values() for word in palette.words} | {"white", "pale", "deep"})
FLOWERS = (
    "hibiscus",
    "anemone",
    "marigold",
    "camellia",
    "peony",
    "cornflower",
    "dahlia",
    "zinnia",
    "aster",
    "lily",
    "orchid",
    "daisy",
    "cosmos",
    "begonia",
    "clematis",
    "hydrangea",
    "lotus",
    "primrose",
    "violet",
    "freesia",
)
THINGS = (
    "fox",
    "owl",
    "heron",
    "rabbit",
    "deer",
    "boat",
    "barn",
    "bridge",
    "windmill",
    "cottage",
    "harbour",
    "meadow",
    "river",
    "orchard",
    "garden",
    "apple",
    "plum",
    "vase",
    "jug",
    "kite",
    "lantern",
    "umbrella",
    "bicycle",
    "hat",
)
PLACES = ("in a vase", "by a window", "in the rain", "at noon", "in spring", "at sunset", "on a table", "in a field")
TEMPLATES = (
    "a {colour} {flower}",
    "{colour} {flowers} {place}",
    "a {thing} {place}",
    "a {colour} {thing}",
    "a {flower} and a {thing}",
)


def corpus_subjects(named: tuple[str, ...], count: int, seed: int, held_out: tuple[str, ...] = ()) -> list[str]:
    """The subject of each of `count` sketches: `named` in turn at even places, drawn ones at odd places,
    none of them the shipped held-out set's (the demo's set is a third of it) or in `held_out`."""
    kept_out = {normal_subject(s) for s in (*load_subjects(EVAL_SUBJECTS_FILE).subjects, *held_out)}
    rng = Random(f"subjects:{seed}")
    subjects = []
    for i in range(count):
        if i % 2 == 0:
            subjects.append(named[i // 2 % len(named)])
            continue
        while normal_subject(subject := _drawn(rng)) in kept_out:
            pass
        subjects.append(subject)
    return subjects


def _drawn(rng: Random) -> str:
    words = {"colour": rng.choice(COLOURS), "flower": rng.choice(FLOWERS), "thing": rng.choice(THINGS)}
    words["flowers"] = _plural(words["flower"])
    subject = rng.choice(TEMPLATES).format(place=rng.choice(PLACES), **words)
    return re.sub(r"\ba (?=[aeiou])", "an ", subject)


def _plural(noun: str) -> str:
    if noun.endswith(("s", "x")):
        return noun + "es"
    return noun[:-1] + "ies" if noun.endswith("y") else noun + "s"

"""generate_sketch: a seeded, complete p5.brush watercolour sketch of a subject.

The subject's words choose what is painted: "hibiscus", leaves ("leaf", "foliage", ...),
stems with buds ("stem", "bud", ...), and a generic flower for anything else ("a rose").
A colour word ("violet", "pink", ...) chooses the palette; the seed chooses everything else, the look
(zoom, wash, bleed: looks.py) from a stream of its own.
`detail` scales the vertices of every outline, and with them the length of the text: at 1
sketches are 10-18k characters (median about 13k), around where the length term becomes full
(12k characters); 0.5 makes them about a fifth shorter, 1.5 about a quarter longer.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from random import Random

from watercolour_harness.sketchgen import foliage
from watercolour_harness.sketchgen.blooms import PAINTERS
from watercolour_harness.sketchgen.layouts import BLOOM_LAYOUTS, LEAF_LAYOUTS, STEM_LAYOUTS, Layout
from watercolour_harness.sketchgen.looks import Look
from watercolour_harness.sketchgen.palettes import GREENS, PALETTES, palette_in
from watercolour_harness.sketchgen.writer import SketchWriter


@dataclass(frozen=True)
class Kind:
    words: tuple[str, ...]  # words in a subject that ask for this kind
    layouts: dict[str, Layout]
    bloom: str | None  # the bloom painter, for kinds with flowers


KINDS = {
    "hibiscus": Kind(("hibiscus",), BLOOM_LAYOUTS, "hibiscus"),
    "leaves": Kind(("leaf", "leaves", "foliage", "fern", "sprig", "branch"), LEAF_LAYOUTS, None),
    "stems": Kind(("stem", "stems", "stalk", "stalks", "bud", "buds"), STEM_LAYOUTS, None),
    "flower": Kind((), BLOOM_LAYOUTS, "flower"),  # the fallback for every other subject
}
DETAIL_RANGE = (0.3, 3.0)


# Every sketch's first line names its composition and palette; TITLE reads them back (from a reply too).
TITLE = re.compile(r"^// .* in loose watercolour: (?P<layout>[a-z-]+), (?P<palette>[a-z]+) palette\.$", re.MULTILINE)


def subject_kind(subject: str) -> str:
    words = set(re.findall(r"[a-z]+", subject.lower()))
    return next((name for name, kind in KINDS.items() if words & set(kind.words)), "flower")


def generate_sketch(
    subject: str,
    seed: int,
    *,
    palette: str | None = None,
    composition: str | None = None,
    detail: float = 1.0,
    paper_wash: bool = True,
    look: Look | None = None,
    title: str | None = None,
) -> str:
    """`paper_wash=False` never lays the soft ground wash that three sketches in four sit on: it is the largest
    shape to render and too pale to count as paint, so leaving it out makes renders faster and changes no score."""
    name = subject_kind(subject)
    kind = KINDS[name]
    _check(kind, palette, composition, detail)
    rng = Random(f"{name}:{seed}")
    # Drawn whatever the knobs say, so that a knob leaves the other choices of a seed alone.
    drawn_palette, drawn_layout = rng.choice(sorted(PALETTES)), rng.choice(sorted(kind.layouts))
    chosen = PALETTES[palette or palette_in(subject) or drawn_palette]
    layout = composition or drawn_layout
    greens = rng.choice(GREENS)
    texture = (rng.uniform(0.45, 0.65), rng.uniform(0.4, 0.55))
    scene = kind.layouts[layout](rng)
    wash_rng = Random(rng.random())  # the wash draws from its own stream, so leaving it out changes nothing else

    title = f"{_title(title or subject)} in loose watercolour: {layout}, {chosen.name} palette."
    look = look or Look.drawn(Random(f"look:{name}:{seed}"))  # its own stream: a given look changes nothing else
    w = SketchWriter(title, rng.choice(chosen.papers), texture, look)
    if wash_rng.random() < 0.75 and paper_wash:
        foliage.paper_wash(w, wash_rng, scene, chosen, detail)
    foliage.stems(w, rng, scene.stems, greens)
    foliage.leaves(w, rng, scene.leaves, greens, detail, chosen.petal[1] if name == "leaves" else None)
    foliage.buds(w, rng, scene.buds, chosen, greens, detail)
    for i, bloom in enumerate(scene.blooms):
        label = f" {i + 1} of {len(scene.blooms)}" if len(scene.blooms) > 1 else ""
        PAINTERS[kind.bloom](w, rng, bloom, chosen, detail, label)
    return w.text()


def corpus(subject: str, count: int, seed: int = 0, **knobs) -> Iterator[str]:
    """`count` sketches of one subject, for seeds seed, seed + 1, ..."""
    for i in range(count):
        yield generate_sketch(subject, seed + i, **knobs)


def _check(kind: Kind, palette: str | None, composition: str | None, detail: float) -> None:
    if palette is not None and palette not in PALETTES:
        raise ValueError(f"unknown palette {palette!r}; choose from {', '.join(sorted(PALETTES))}")
    if composition is not None and composition not in kind.layouts:
        raise ValueError(f"unknown composition {composition!r} for this subject; choose from {', '.join(sorted(kind.layouts))}")
    if not DETAIL_RANGE[0] <= detail <= DETAIL_RANGE[1]:
        raise ValueError(f"detail {detail} is outside {DETAIL_RANGE}")


def _title(subject: str) -> str:
    """The subject as it may appear in a comment: one line of plain words."""
    words = re.sub(r"[^A-Za-z0-9 ,'-]+", " ", subject).split()
    return " ".join(words)[:60].capitalize() or "A flower"

"""Painters for everything but the blooms: the paper wash, stems, leaves and buds.

Each paints in passes, pale before dark: a light wash over every leaf, then a shaded half
and a midrib on top, the way watercolour is built up in translucent layers.
"""

from __future__ import annotations

from random import Random

from watercolour_harness.sketchgen.palettes import Greens, Palette
from watercolour_harness.sketchgen.scene import Bud, Leaf, Scene, Stem
from watercolour_harness.sketchgen.shapes import band, blob, leaf, oval_petal, polar, vertex_count
from watercolour_harness.sketchgen.writer import CANVAS, SketchWriter


def paper_wash(w: SketchWriter, rng: Random, scene: Scene, palette: Palette, detail: float) -> None:
    w.section("Paper: one soft wash for the subject to sit on.")
    x, y = scene.centre
    r = min(rng.uniform(200, 240), min(x, y, CANVAS - x, CANVAS - y) / 1.15)  # wobble included, it stays on the sheet
    outline = blob(rng, x, y, r, vertex_count(16, detail), rng.uniform(0.85, 1), 0.12)
    w.wash(outline, palette.ground, 110, 0.3, 0.8, first=True)


def stems(w: SketchWriter, rng: Random, items: list[Stem], greens: Greens) -> None:
    if not items:
        return
    w.section("Stems, under everything else.")
    alpha = rng.randint(135, 155)
    for stem in items:
        w.wash(band(stem.path, stem.width * 0.65, stem.width), greens.stem, alpha, 0.1, 0.6, thin=True, first=True)


def leaves(w: SketchWriter, rng: Random, items: list[Leaf], greens: Greens, detail: float, tint: str | None = None) -> None:
    """`tint`: a colour dropped into the outer half of each leaf, wet in wet (for leaves as the subject)."""
    if not items:
        return
    w.section("Leaves: a light wash over each, then a shaded half and a midrib.")
    # Leaves as the subject carry the painting's pigment, as petals do: at the faintest look (wash 0.7, glaze 0.4)
    # a leaf's wash at flower-foliage strength fell under the paint threshold, and the sheet read as blank.
    alpha = rng.randint(160, 180) if tint else rng.randint(115, 135)
    for item in items:
        w.wash(
            leaf(item.x, item.y, item.angle, item.length, item.width, _edge(item, detail)),
            greens.light,
            alpha,
            0.2,
            0.3,
            first=True,
        )
    alpha = rng.randint(70, 90)
    for item in items:
        side = rng.choice((-1, 1))
        half = leaf(item.x, item.y, item.angle + 2, item.length * 0.92, item.width * 0.9, _edge(item, detail), side)
        w.wash(half, greens.dark, alpha, 0.15, 0.3)
    if tint:
        alpha = rng.randint(50, 70)
        for item in items:
            x, y = polar(item.x, item.y, item.angle, item.length * 0.45)
            outer = leaf(x, y, item.angle, item.length * 0.55, item.width * 0.8, _edge(item, detail * 0.6))
            w.wash(outer, tint, alpha, 0.25, 0.3)
    for item in items:
        rib = [(item.x, item.y), *(polar(item.x, item.y, item.angle, item.length * t) for t in (0.5, 0.85))]
        w.wash(band(rib, 4, 1.5), greens.dark, 60, 0.05, 0.4, thin=True)


def _edge(item: Leaf, detail: float) -> int:
    """Vertices along one edge: 7 on a leaf 150 pixels long, more on longer ones."""
    return vertex_count(7, detail * item.length / 150)


def buds(w: SketchWriter, rng: Random, items: list[Bud], palette: Palette, greens: Greens, detail: float) -> None:
    if not items:
        return
    n = vertex_count(12, detail)
    w.section("Buds: a furled petal, a warmer glaze, and green sepals holding them.")
    for bud in items:
        w.wash(
            oval_petal(rng, bud.x, bud.y, bud.angle, bud.size, bud.size * 0.55, n), palette.petal[0], 165, 0.25, 0.7, first=True
        )
    for bud in items:
        glaze = oval_petal(rng, bud.x, bud.y, bud.angle + rng.uniform(4, 10), bud.size * 0.9, bud.size * 0.3, n)
        w.wash(glaze, palette.petal[1], 120, 0.2, 0.7)
    for bud in items:
        for turn in (-28, 0, 28):
            sepal = leaf(bud.x, bud.y, bud.angle + turn, bud.size * 0.45, bud.size * 0.12, 3)
            w.wash(sepal, greens.dark, 140, 0.2, 0.4)

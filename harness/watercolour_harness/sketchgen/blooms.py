"""Bloom painters: a hibiscus (five fan petals, a dark eye, an arching stamen) and a generic
flower (rounded petals round a dotted disc) for every subject that is not a hibiscus.

Both paint pale washes first and darker, more transparent glazes over them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from random import Random

from watercolour_harness.sketchgen.palettes import Palette
from watercolour_harness.sketchgen.scene import Bloom
from watercolour_harness.sketchgen.shapes import band, blob, curve, fan_petal, oval_petal, polar, vertex_count
from watercolour_harness.sketchgen.writer import SketchWriter

BloomPainter = Callable[[SketchWriter, Random, Bloom, Palette, float, str], None]


def hibiscus(w: SketchWriter, rng: Random, b: Bloom, p: Palette, detail: float, label: str) -> None:
    n = vertex_count(12, detail * b.size / 160)  # smaller blooms need fewer points
    petals = 5
    angles = [b.turn + k * 360 / petals + rng.uniform(-8, 8) for k in range(petals)]
    lengths = [b.size * rng.uniform(0.92, 1.05) for _ in angles]
    w.section(f"Bloom{label}: five pale petals, then a warm glaze and a shaded edge on each.")
    alpha = rng.randint(160, 185)
    for k, (a, length) in enumerate(zip(angles, lengths, strict=True), 1):
        w.wash(fan_petal(rng, b.x, b.y, a, length, 40, n, b.squash), p.petal[0], alpha, 0.3, 0.5, first=True, count=(k, petals))
    alpha = rng.randint(105, 125)
    for k, (a, length) in enumerate(zip(angles, lengths, strict=True), 1):
        glaze = fan_petal(rng, b.x, b.y, a + rng.uniform(-5, 5), length * rng.uniform(0.6, 0.7), 30, n, b.squash)
        w.wash(glaze, p.petal[1], alpha, 0.25, 0.5, count=(k, petals))
    alpha = rng.randint(60, 80)
    for k, (a, length) in enumerate(zip(angles, lengths, strict=True), 1):
        edge = fan_petal(rng, b.x, b.y, a, length * 0.97, 40, max(3, n // 3), b.squash, part=(0, 0.35))
        w.wash(edge, p.petal[2], alpha, 0.2, 0.5, count=(k, petals))

    w.section("Eye: veins fanning into the petals, then darker washes at the throat.")
    for k, (a, length) in enumerate(zip(angles, lengths, strict=True), 1):
        a += rng.uniform(-6, 6)
        # The base lies across the vein: a base along it makes a flat triangle that p5.brush smears over the sheet.
        left, right = (polar(b.x, b.y, a + turn, 4) for turn in (-90, 90))
        w.wash([left, polar(b.x, b.y, a, length * 0.6, b.squash), right], p.eye[0], 80, 0.1, 0.2, thin=True, count=(k, petals))
    for colour, share, alpha, base in zip(p.eye, (0.36, 0.24, 0.15), (130, 200, 230), (14, 12, 10), strict=True):
        w.wash(blob(rng, b.x, b.y, b.size * share, vertex_count(base, detail), b.squash, 0.2), colour, alpha, 0.3, 0.7)
    w.dot(b.x, b.y, b.size * 0.07, p.eye[2], 230, 0)

    w.section("Stamen: a column arching out of the throat, tipped with pollen.")
    scale = b.size / 170
    tip = polar(b.x, b.y, rng.uniform(-150, -30), b.size * rng.uniform(0.55, 0.65))
    w.wash(band(curve((b.x, b.y), tip, rng.uniform(-12, 12), 4), 12 * scale, 7 * scale), p.eye[0], 200, 0.1, 0.5, thin=True)
    for k in range(1, 6):
        x, y = polar(*tip, rng.uniform(0, 360), rng.uniform(6, 20) * scale)
        w.dot(x, y, rng.uniform(4, 6) * scale, p.pollen, 225, 0.3, count=(k, 5))
    for k in range(1, 4):
        x, y = polar(*tip, rng.uniform(0, 360), rng.uniform(0, 6) * scale)
        w.dot(x, y, 5 * scale, p.eye[1], 220, 0.2, count=(k, 3))


def flower(w: SketchWriter, rng: Random, b: Bloom, p: Palette, detail: float, label: str) -> None:
    n = vertex_count(12, detail * b.size / 160)  # smaller blooms need fewer points
    count = rng.randint(6, 9)
    width = b.size * math.pi / count * rng.uniform(1.35, 1.6)  # neighbours overlap a little
    angles = [b.turn + k * 360 / count + rng.uniform(-6, 6) for k in range(count)]
    lengths = [b.size * rng.uniform(0.9, 1.05) for _ in angles]
    w.section(f"Bloom{label}: {count} pale rounded petals, a glaze at their base and a crease down each.")
    alpha = rng.randint(160, 180)
    for k, (a, length) in enumerate(zip(angles, lengths, strict=True), 1):
        petal = oval_petal(rng, b.x, b.y, a, length, width, n, b.squash)
        w.wash(petal, p.petal[0], alpha, 0.3, 0.6, first=True, count=(k, count))
    alpha = rng.randint(100, 120)
    for k, (a, length) in enumerate(zip(angles, lengths, strict=True), 1):
        glaze = oval_petal(rng, b.x, b.y, a + rng.uniform(-4, 4), length * 0.55, width * 0.6, n, b.squash)
        w.wash(glaze, p.petal[1], alpha, 0.25, 0.6, count=(k, count))
    alpha = rng.randint(55, 70)
    for k, (a, length) in enumerate(zip(angles, lengths, strict=True), 1):
        crease = oval_petal(rng, b.x, b.y, a, length * 0.85, width * 0.22, max(4, n // 2), b.squash)
        w.wash(crease, p.petal[2], alpha, 0.2, 0.5, count=(k, count))

    w.section("Centre: a pollen disc, a darker heart and a ring of stamen dots.")
    r = b.size * rng.uniform(0.2, 0.25)
    w.wash(blob(rng, b.x, b.y, r, vertex_count(12, detail), b.squash, 0.15), p.pollen, 200, 0.25, 0.7)
    w.wash(blob(rng, b.x, b.y, r * 0.6, vertex_count(10, detail), b.squash, 0.15), p.eye[1], 170, 0.2, 0.7)
    dots = rng.randint(8, 12)
    for k in range(dots):
        x, y = polar(b.x, b.y, k * 360 / dots + rng.uniform(-8, 8), r * rng.uniform(0.75, 0.95), b.squash)
        w.dot(x, y, r * 0.12, p.eye[2], 210, 0.3, count=(k + 1, dots))


PAINTERS: dict[str, BloomPainter] = {"hibiscus": hibiscus, "flower": flower}

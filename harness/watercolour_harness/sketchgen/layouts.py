"""Compositions: where the blooms, buds, stems and leaves go on the 600x600 sheet.

A layout only places things; the painters in blooms.py and foliage.py decide how they look.
Bloom subjects use BLOOM_LAYOUTS, leaves LEAF_LAYOUTS, stems with buds STEM_LAYOUTS.
"""

from __future__ import annotations

from collections.abc import Callable
from random import Random

from watercolour_harness.sketchgen.scene import Bud, Leaf, Scene, bloom_at, leaves_along, stem_between
from watercolour_harness.sketchgen.shapes import heading


def single(rng: Random) -> Scene:
    bloom = bloom_at(rng, rng.uniform(270, 330), rng.uniform(240, 290), rng.uniform(150, 180))
    stem = stem_between(rng, (bloom.x, bloom.y + 20), (bloom.x + rng.uniform(-60, 60), 600), rng.uniform(11, 15))
    return Scene((bloom.x, bloom.y + 30), [stem], leaves_along(rng, stem, rng.randint(2, 3), (130, 180)), [], [bloom])


def off_centre(rng: Random) -> Scene:
    side = rng.choice((-1, 1))
    bloom = bloom_at(rng, 300 + side * rng.uniform(70, 100), rng.uniform(200, 250), rng.uniform(140, 165))
    stem = stem_between(rng, (bloom.x, bloom.y + 20), (300 - side * rng.uniform(20, 90), 600), rng.uniform(11, 14))
    bud_stem = stem_between(rng, (300 - side * rng.uniform(110, 150), rng.uniform(140, 200)), heading(stem.path, 0.6)[0], 7)
    buds = [Bud(*bud_stem.path[0], -90 + rng.uniform(-25, 25), rng.uniform(50, 65))]
    leaves = leaves_along(rng, stem, 2, (130, 170))
    return Scene((300, 300), [stem, bud_stem], leaves, buds, [bloom])


def pair(rng: Random) -> Scene:
    side = rng.choice((-1, 1))
    big = bloom_at(rng, 300 - side * rng.uniform(60, 90), rng.uniform(200, 250), rng.uniform(120, 140))
    small = bloom_at(rng, 300 + side * rng.uniform(100, 130), rng.uniform(340, 390), rng.uniform(85, 105))
    base = (300 + rng.uniform(-30, 30), 600)
    stems = [stem_between(rng, (b.x, b.y + 15), base, w) for b, w in ((big, 13), (small, 10))]
    return Scene((300, 300), stems, leaves_along(rng, stems[0], 2, (110, 150), start=0.5), [], [big, small])


def with_leaves(rng: Random) -> Scene:
    bloom = bloom_at(rng, rng.uniform(270, 330), rng.uniform(260, 300), rng.uniform(130, 155))
    stem = stem_between(rng, (bloom.x, bloom.y), (bloom.x + rng.uniform(-40, 40), 600), rng.uniform(12, 15))
    count = rng.randint(4, 5)
    leaves = []
    for i in range(count):  # fanned out behind the bloom, from lower left round to lower right
        length = rng.uniform(190, 240)
        angle = 150 + 240 * (i + 0.5) / count + rng.uniform(-12, 12)
        leaves.append(Leaf(bloom.x, bloom.y, angle, length, length * rng.uniform(0.28, 0.34)))
    return Scene((bloom.x, bloom.y), [stem], leaves, [], [bloom])


def sprig(rng: Random) -> Scene:
    side = rng.choice((-1, 1))
    top, base = (300 + side * rng.uniform(90, 150), rng.uniform(130, 170)), (300 - side * rng.uniform(60, 140), 600)
    stem = stem_between(rng, top, base, 9)
    leaves = leaves_along(rng, stem, rng.randint(7, 9), (110, 160), start=0.05)
    tip = stem.path[0]
    direction = heading(stem.path, 0.0)[1] + 180
    return Scene((300, 320), [stem], [*leaves, Leaf(*tip, direction, rng.uniform(100, 130), 34)])


def fan(rng: Random) -> Scene:
    x, y = rng.uniform(260, 340), rng.uniform(500, 540)
    count = rng.randint(6, 8)
    leaves = []
    for i in range(count):
        length = rng.uniform(220, 300)
        angle = 200 + 140 * (i + 0.5) / count + rng.uniform(-8, 8)
        leaves.append(Leaf(x, y, angle, length, length * rng.uniform(0.22, 0.3)))
    return Scene((x, y - 180), [stem_between(rng, (x, y), (x + rng.uniform(-20, 20), 600), 12)], leaves)


def crossed(rng: Random) -> Scene:
    scene = Scene((300, 320))
    for side in (-1, 1):
        top = (300 + side * rng.uniform(110, 170), rng.uniform(90, 140))
        stem = stem_between(rng, top, (300 - side * rng.uniform(40, 110), 600), 8)
        scene.stems.append(stem)
        scene.leaves += leaves_along(rng, stem, rng.randint(5, 6), (100, 140), start=0.05)
    return scene


def bundle(rng: Random) -> Scene:
    base = (rng.uniform(270, 330), 600)
    count = rng.randint(3, 5)
    scene = Scene((300, 300))
    for i in range(count):
        top = (base[0] + 260 * ((i + 0.5) / count - 0.5) + rng.uniform(-20, 20), rng.uniform(90, 230))
        stem = stem_between(rng, top, base, rng.uniform(9, 12))
        scene.stems.append(stem)
        scene.buds.append(Bud(*top, heading(stem.path, 0.0)[1] + 180 + rng.uniform(-10, 10), rng.uniform(60, 80)))
        scene.leaves += leaves_along(rng, stem, 2, (90, 130), 0.3, (0.16, 0.22))
    return scene


def row(rng: Random) -> Scene:
    count = rng.randint(3, 4)
    scene = Scene((300, 330))
    for i in range(count):
        x = 300 + 380 * ((i + 0.5) / count - 0.5) + rng.uniform(-15, 15)
        stem = stem_between(rng, (x, rng.uniform(110, 260)), (x + rng.uniform(-30, 30), 600), rng.uniform(9, 12))
        scene.stems.append(stem)
        scene.buds.append(Bud(*stem.path[0], -90 + rng.uniform(-20, 20), rng.uniform(60, 80)))
        scene.leaves += leaves_along(rng, stem, rng.randint(2, 3), (90, 130), 0.3, (0.16, 0.22))
    return scene


Layout = Callable[[Random], Scene]
BLOOM_LAYOUTS: dict[str, Layout] = {
    "single": single,
    "off-centre": off_centre,
    "pair": pair,
    "bloom-with-leaves": with_leaves,
}
LEAF_LAYOUTS: dict[str, Layout] = {"sprig": sprig, "fan": fan, "crossed": crossed}
STEM_LAYOUTS: dict[str, Layout] = {"bundle": bundle, "row": row}

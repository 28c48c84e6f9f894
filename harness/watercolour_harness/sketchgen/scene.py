"""What a composition places on the sheet (blooms, leaves, stems, buds), and helpers to place them.

Angles are in degrees; up is -90 (the canvas y axis points down).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from random import Random

from watercolour_harness.sketchgen.shapes import Point, curve, heading


@dataclass(frozen=True)
class Bloom:
    x: float
    y: float
    size: float  # petal length in pixels
    turn: float  # rotation of the whole flower
    squash: float  # < 1: seen at a slant


@dataclass(frozen=True)
class Leaf:
    x: float
    y: float
    angle: float
    length: float
    width: float


@dataclass(frozen=True)
class Stem:
    path: list[Point]
    width: float  # at the base; stems taper towards the top


@dataclass(frozen=True)
class Bud:
    x: float
    y: float
    angle: float
    size: float


@dataclass
class Scene:
    centre: Point  # where the paper wash goes
    stems: list[Stem] = field(default_factory=list)
    leaves: list[Leaf] = field(default_factory=list)
    buds: list[Bud] = field(default_factory=list)
    blooms: list[Bloom] = field(default_factory=list)


def stem_between(rng: Random, top: Point, base: Point, width: float) -> Stem:
    """A gently bowed stem from its top (the flower end) down to its base."""
    return Stem(curve(top, base, rng.uniform(-40, 40), 5), width)


Span = tuple[float, float]


def leaves_along(
    rng: Random, stem: Stem, count: int, length: Span, start: float = 0.35, width: Span = (0.26, 0.34)
) -> list[Leaf]:
    """Leaves alternating left and right along a stem, pointing away from it and upwards; `width` is a share of length."""
    leaves = []
    side = rng.choice((-1, 1))
    for i in range(count):
        (x, y), direction = heading(stem.path, start + (0.9 - start) * (i + rng.uniform(0.2, 0.8)) / count)
        size = rng.uniform(*length)
        leaves.append(Leaf(x, y, direction + 180 + side * rng.uniform(35, 65), size, size * rng.uniform(*width)))
        side = -side
    return leaves


def bloom_at(rng: Random, x: float, y: float, size: float) -> Bloom:
    """A bloom turned any way, seen from slightly to a little more aslant."""
    return Bloom(x, y, size, rng.uniform(0, 360), rng.uniform(0.8, 0.95))

"""Outlines for washes: lists of canvas points, computed here so the sketch only holds numbers.

Angles are in degrees, as in the sketches (angleMode(DEGREES)); `squash` flattens an outline
vertically around its centre, which reads as a flower seen at a slant.
"""

from __future__ import annotations

import math
from random import Random

Point = tuple[float, float]


def vertex_count(base: int, detail: float) -> int:
    """Vertices for an outline that has `base` of them at detail 1; never too few to keep its shape."""
    return max(4, round(base * detail))


def polar(cx: float, cy: float, angle: float, r: float, squash: float = 1.0) -> Point:
    a = math.radians(angle)
    return cx + math.cos(a) * r, cy + math.sin(a) * r * squash


def blob(rng: Random, cx: float, cy: float, r: float, n: int, squash: float = 1.0, wobble: float = 0.15) -> list[Point]:
    """An irregular round wash (paper washes, the eye of a flower)."""
    return [polar(cx, cy, i * 360 / n, r * (1 + rng.uniform(-wobble, wobble)), squash) for i in range(n)]


def fan_petal(
    rng: Random,
    cx: float,
    cy: float,
    angle: float,
    length: float,
    spread: float,
    n: int,
    squash: float = 1.0,
    part: tuple[float, float] = (0.0, 1.0),
) -> list[Point]:
    """A broad petal opening from the centre with a ruffled rim; `part` keeps a slice of the fan, for shading one side."""
    start, end = part
    points = [(cx, cy)]
    for i in range(n + 1):
        u = 2 * (start + (end - start) * i / n) - 1
        ruffle = rng.uniform(0.9, 0.96) if i % 2 else rng.uniform(0.99, 1.05)
        points.append(polar(cx, cy, angle + u * spread, length * (1 - 0.4 * u**4) * ruffle, squash))
    return points


def oval_petal(
    rng: Random, cx: float, cy: float, angle: float, length: float, width: float, n: int, squash: float = 1.0
) -> list[Point]:
    """A rounded petal from the centre outwards, widest beyond its middle like a cosmos or a bud."""
    a = math.radians(angle)
    points = []
    for i in range(n):
        t = 2 * math.pi * i / n
        along = length * (1 - math.cos(t)) / 2 * rng.uniform(0.97, 1.03)
        across = width / 2 * math.sin(t) * (0.6 + 0.4 * along / length)
        dx, dy = along * math.cos(a) - across * math.sin(a), along * math.sin(a) + across * math.cos(a)
        points.append((cx + dx, cy + dy * squash))
    return points


def leaf(x: float, y: float, angle: float, length: float, width: float, n: int, side: int = 0) -> list[Point]:
    """A pointed, slightly serrated leaf from its base; side 1 or -1 keeps one half (for the shaded half)."""
    a = math.radians(angle)
    ux, uy = math.cos(a), math.sin(a)

    def edge(s: int) -> list[Point]:
        points = []
        for i in range(1, n + 1):
            t = i / (n + 1)
            off = s * width * math.sin(t * math.pi) * (1 if i % 2 else 0.86)
            points.append((x + ux * length * t - uy * off, y + uy * length * t + ux * off))
        return points

    tip = (x + ux * length, y + uy * length)
    if side:
        return [(x, y), *edge(side), tip]
    return [(x, y), *edge(1), tip, *reversed(edge(-1))]


def curve(start: Point, end: Point, bow: float, n: int) -> list[Point]:
    """n points on a gentle arc from start to end; `bow` pushes the middle sideways (pixels)."""
    (x0, y0), (x1, y1) = start, end
    length = math.hypot(x1 - x0, y1 - y0) or 1.0
    mx, my = (x0 + x1) / 2 - (y1 - y0) / length * bow, (y0 + y1) / 2 + (x1 - x0) / length * bow

    def at(t: float, a: float, m: float, b: float) -> float:  # a quadratic Bezier through the pushed middle
        return (1 - t) ** 2 * a + 2 * t * (1 - t) * m + t**2 * b

    return [(at(i / (n - 1), x0, mx, x1), at(i / (n - 1), y0, my, y1)) for i in range(n)]


def band(path: list[Point], w0: float, w1: float) -> list[Point]:
    """A tapering band along a path (stems, a stamen column): its outline, one side then the other."""
    left, right = [], []
    for i, (x, y) in enumerate(path):
        (px, py), (nx, ny) = path[max(i - 1, 0)], path[min(i + 1, len(path) - 1)]
        d = math.hypot(nx - px, ny - py) or 1.0
        half = (w0 + (w1 - w0) * i / (len(path) - 1)) / 2
        ox, oy = -(ny - py) / d * half, (nx - px) / d * half
        left.append((x + ox, y + oy))
        right.append((x - ox, y - oy))
    return left + right[::-1]


def heading(path: list[Point], t: float) -> tuple[Point, float]:
    """The point at fraction t along a path's vertices, and the path's direction there (degrees)."""
    i = min(int(t * (len(path) - 1)), len(path) - 2)
    (x0, y0), (x1, y1) = path[i], path[i + 1]
    f = t * (len(path) - 1) - i
    return (x0 + (x1 - x0) * f, y0 + (y1 - y0) * f), math.degrees(math.atan2(y1 - y0, x1 - x0))

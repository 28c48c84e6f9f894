"""A least-squares slope with its 95% interval: "trends up" means the whole interval is above 0."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from statistics import fmean

# Student's t, two-sided 95%, by degrees of freedom; between entries the smaller df is used (wider, so cautious).
T_975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228}
T_975 |= {12: 2.179, 15: 2.131, 20: 2.086, 25: 2.060, 30: 2.042, 40: 2.021, 60: 2.000, 120: 1.980}


@dataclass(frozen=True)
class Trend:
    slope: float
    stderr: float
    low: float
    high: float
    points: int


def t_975(df: int) -> float:
    return T_975[max(k for k in T_975 if k <= df)] if df <= 120 else 1.960


def linear_trend(xs: list[float], ys: list[float], groups: list[str] | None = None) -> Trend | None:
    """The least-squares slope of ys over xs; None while the points leave no degree of freedom for its error
    (fewer than three points in one group).

    With `groups`, each group has its own level and the slope is the one they share (a regression with one
    intercept per group): points are compared only with their own group's, so a hard subject's turn late in
    a run does not read as a fall. A group of one point says nothing of the slope and is left out.
    """
    members: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for x, y, group in zip(xs, ys, groups or [""] * len(xs), strict=True):
        members[group].append((x, y))
    kept = [points for points in members.values() if len(points) > 1]
    centred = []
    for points in kept:
        mean_x, mean_y = fmean(x for x, _ in points), fmean(y for _, y in points)
        centred += [(x - mean_x, y - mean_y) for x, y in points]
    n = len(centred)
    df = n - len(kept) - 1
    sxx = sum(x * x for x, _ in centred)
    if df < 1 or sxx == 0:
        return None
    slope = sum(x * y for x, y in centred) / sxx
    residual = sum((y - slope * x) ** 2 for x, y in centred)
    stderr = math.sqrt(residual / df / sxx)
    margin = t_975(df) * stderr
    return Trend(slope=slope, stderr=stderr, low=slope - margin, high=slope + margin, points=n)

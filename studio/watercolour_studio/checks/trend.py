"""A least-squares slope with its 95% interval: "trends up" means the whole interval is above 0."""

from __future__ import annotations

import math
from dataclasses import dataclass

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


def linear_trend(xs: list[float], ys: list[float]) -> Trend | None:
    """None with fewer than three points: two points have no uncertainty to speak of."""
    n = len(xs)
    if n < 3:
        return None
    mean_x, mean_y = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mean_x) ** 2 for x in xs)
    if sxx == 0:
        return None
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / sxx
    residual = sum((y - mean_y - slope * (x - mean_x)) ** 2 for x, y in zip(xs, ys, strict=True))
    stderr = math.sqrt(residual / (n - 2) / sxx)
    margin = t_975(n - 2) * stderr
    return Trend(slope=slope, stderr=stderr, low=slope - margin, high=slope + margin, points=n)

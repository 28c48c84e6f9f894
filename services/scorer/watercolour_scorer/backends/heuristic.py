"""A CPU stand-in for HPSv3 for offline development and tests. It is NOT HPSv3 and
is named `heuristic` in every answer.

A deterministic watercolour score from image statistics, in the same 0..1
range after normalisation (mu = temperature * logit(quality), so the default
sigmoid gives back `quality`):

- coverage: paint over 25-55% of the paper scores best; an empty sheet scores ~0
- translucency: painted pixels that stay light (layered washes, not opaque paint)
- softness: the share of edges that are gradual rather than hard
- palette: a few distinct hues, not one and not a rainbow

The prompt is ignored: the heuristic cannot tell a flower from anything else.
"""

from __future__ import annotations

import numpy as np
from PIL import Image

from watercolour_shared.paint import paint_mask

WEIGHTS = {"coverage": 0.35, "translucency": 0.25, "softness": 0.25, "palette": 0.15}
FLOOR = 0.05  # quality never reaches 0 or 1, so mu stays finite
TEMPERATURE = 4.0


def features(image: Image.Image) -> dict[str, float]:
    rgb = np.asarray(image.convert("RGB").resize((300, 300)), dtype=np.float32)
    painted = paint_mask(rgb)
    coverage = float(painted.mean())
    if coverage == 0:
        return {"coverage": 0.0, "translucency": 0.0, "softness": 0.0, "palette": 0.0}
    return {
        "coverage": float(np.exp(-(((coverage - 0.4) / 0.25) ** 2))),
        "translucency": _translucency(rgb, painted),
        "softness": _softness(rgb),
        "palette": _palette(image, painted),
    }


def _translucency(rgb: np.ndarray, painted: np.ndarray) -> float:
    lightness = rgb[painted].mean(axis=1) / 255.0
    return float(np.clip((lightness.mean() - 0.35) / 0.5, 0.0, 1.0))


def _softness(rgb: np.ndarray) -> float:
    grey = rgb.mean(axis=2)
    gradient = np.hypot(*np.gradient(grey))
    edges = gradient > 2.0
    if not edges.any():
        return 0.0
    return float((gradient[edges] < 24.0).mean())


def _palette(image: Image.Image, painted: np.ndarray) -> float:
    hsv = np.asarray(image.convert("RGB").resize((300, 300)).convert("HSV"), dtype=np.int32)
    chroma = painted & (hsv[..., 1] > 40)
    if chroma.sum() < 50:
        return 0.2
    shares = np.bincount(hsv[..., 0][chroma] * 12 // 256, minlength=12) / chroma.sum()
    hues = int((shares > 0.03).sum())
    return {1: 0.4, 2: 0.8, 3: 1.0, 4: 1.0, 5: 0.8}.get(hues, 0.5)


class HeuristicBackend:
    name = "heuristic"
    model = "watercolour-heuristic"
    version = "1"

    def load(self) -> None:
        """Nothing to load."""

    def score_batch(self, images: list[Image.Image], prompts: list[str]) -> list[tuple[float, float]]:
        return [self._score(image) for image in images]

    @staticmethod
    def _score(image: Image.Image) -> tuple[float, float]:
        values = features(image)
        quality = FLOOR + (1 - 2 * FLOOR) * sum(WEIGHTS[name] * values[name] for name in WEIGHTS)
        mu = TEMPERATURE * float(np.log(quality / (1 - quality)))
        sigma = TEMPERATURE * float(np.std(list(values.values())))
        return mu, sigma

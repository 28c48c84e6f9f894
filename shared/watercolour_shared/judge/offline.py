"""A deterministic judge for development and tests: no network, no model. It is
named `offline-judge` everywhere and is not a VLM.

It prefers the painting whose paint covers nearer to 35% of the paper with lighter,
more translucent colour: a crude stand-in for "layered washes, not blobs or an
empty sheet". Position never matters, so both orders always agree.
"""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

from watercolour_shared.judge.verdict import Verdict
from watercolour_shared.paint import paint_mask


def wash_quality(png: bytes) -> float:
    with Image.open(io.BytesIO(png)) as image:
        rgb = np.asarray(image.convert("RGB").resize((200, 200)), dtype=np.float32)
    painted = paint_mask(rgb)
    coverage = float(painted.mean())
    lightness = float(rgb[painted].mean() / 255) if painted.any() else 0.0
    return float(np.exp(-(((coverage - 0.35) / 0.25) ** 2))) * (0.5 + lightness / 2)


class OfflineJudge:
    name = "offline-judge"
    prompt = "offline-judge v1: coverage near 35% and light, translucent colour"

    async def compare(self, painting_a: bytes, painting_b: bytes) -> Verdict:
        quality_a, quality_b = wash_quality(painting_a), wash_quality(painting_b)
        winner = "A" if quality_a >= quality_b else "B"
        return Verdict(winner=winner, reason=f"wash quality {quality_a:.3f} against {quality_b:.3f}")

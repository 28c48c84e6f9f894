"""A deterministic judge for development and tests: no network, no model. It is
named `offline-judge` everywhere and is not a VLM.

It prefers the painting whose paint covers nearer to 35% of the paper with lighter,
more translucent colour: a crude stand-in for "layered washes, not blobs or an
empty sheet". Two paintings whose wash qualities lie within MARGIN of each other
it cannot tell apart: it picks the one shown first, as a VLM judge leans on
position when it has no preference, so the two orders disagree and the pair is a tie.
"""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

from watercolour_shared.judge.verdict import Verdict
from watercolour_shared.paint import paint_mask

# Below this gap in wash quality a pair is a tie: two renders of one unzoomed demo sketch differed by up to 0.04
# from the brushes' random texture alone (zoomed ones by up to a quarter: the margin cannot tie all noise).
MARGIN = 0.05


def wash_quality(png: bytes) -> float:
    with Image.open(io.BytesIO(png)) as image:
        rgb = np.asarray(image.convert("RGB").resize((200, 200)), dtype=np.float32)
    painted = paint_mask(rgb)
    coverage = float(painted.mean())
    lightness = float(rgb[painted].mean() / 255) if painted.any() else 0.0
    return float(np.exp(-(((coverage - 0.35) / 0.25) ** 2))) * (0.5 + lightness / 2)


class OfflineJudge:
    name = "offline-judge"
    prompt = f"offline-judge v2: coverage near 35% and light, translucent colour; no preference within {MARGIN}"

    async def compare(self, painting_a: bytes, painting_b: bytes) -> Verdict:
        quality_a, quality_b = wash_quality(painting_a), wash_quality(painting_b)
        winner = "A" if quality_b - quality_a < MARGIN else "B"  # A when better, or too close to tell
        return Verdict(winner=winner, reason=f"wash quality {quality_a:.3f} against {quality_b:.3f}")

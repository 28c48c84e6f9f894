"""Real PNGs made here: an empty sheet, a hard opaque blob, soft layered washes."""

from __future__ import annotations

import base64
import io

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

PAPER = (246, 241, 231)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def blank_sheet() -> bytes:
    return png(Image.new("RGB", (600, 600), PAPER))


def hard_blob() -> bytes:
    """Opaque, dark, hard-edged: painting without the medium."""
    image = Image.new("RGB", (600, 600), PAPER)
    ImageDraw.Draw(image).ellipse((150, 150, 450, 450), fill=(120, 10, 40))
    return png(image)


def soft_wash(seed: int = 0) -> bytes:
    """Light, layered, blurred washes of three hues: closer to watercolour."""
    rng = np.random.default_rng(seed)
    layer = Image.new("RGB", (600, 600), PAPER)
    for colour in ((240, 150, 110), (225, 120, 150), (140, 185, 120)):
        shape = Image.new("L", (600, 600), 0)
        x, y = rng.integers(120, 360, size=2)
        ImageDraw.Draw(shape).ellipse((x, y, x + 220, y + 200), fill=110)
        layer = Image.composite(Image.new("RGB", (600, 600), colour), layer, shape.filter(ImageFilter.GaussianBlur(18)))
    return png(layer)

"""The rendered sheet: composited onto white paper, and its paint coverage (the share of pixels that
differ from the paper).

The gate uses the coverage to refuse blank canvases; the heuristic scorer uses it as one feature."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

# A pixel is paint when it is farther than this (Euclidean, RGB) from the modal colour.
PAINT_DISTANCE = 32.0
BLANK_BELOW = 0.005


def on_paper(png: bytes) -> bytes:
    """The picture as a person sees it on white paper: a canvas left transparent (no background, washes at
    opacity 1/255) is invisible, and every reader of the PNG (blank check, scorers, judge, gallery) must see
    that, not the colours behind its alpha. An opaque picture comes back unchanged, byte for byte."""
    with Image.open(io.BytesIO(png)) as image:
        rgba = image.convert("RGBA")
    if rgba.getchannel("A").getextrema()[0] == 255:
        return png
    sheet = Image.alpha_composite(Image.new("RGBA", rgba.size, (255, 255, 255, 255)), rgba).convert("RGB")
    out = io.BytesIO()
    sheet.save(out, format="PNG")
    return out.getvalue()


def paint_fraction(png: bytes) -> float:
    with Image.open(io.BytesIO(png)) as image:
        rgb = np.asarray(image.convert("RGB"), dtype=np.int32)
    return float(paint_mask(rgb).mean())


def paint_mask(rgb: np.ndarray) -> np.ndarray:
    """True where a pixel (H x W x 3, 0..255) is paint rather than paper."""
    flat = rgb.reshape(-1, 3).astype(np.int32)
    packed = (flat[:, 0] << 16) | (flat[:, 1] << 8) | flat[:, 2]
    values, counts = np.unique(packed, return_counts=True)
    mode = values[counts.argmax()]
    paper = np.array([(mode >> 16) & 255, (mode >> 8) & 255, mode & 255], dtype=np.int32)
    distance = np.sqrt(((flat - paper) ** 2).sum(axis=1))
    return (distance > PAINT_DISTANCE).reshape(rgb.shape[:2])

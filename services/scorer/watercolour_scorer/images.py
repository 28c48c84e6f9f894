"""Decoding and checking the PNGs a request carries, before any model sees them."""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
from dataclasses import dataclass

from PIL import Image

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class BadImage(ValueError):
    """An image the caller sent cannot be scored; `status` is the HTTP answer."""

    def __init__(self, message: str, status: int = 422):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class CheckedImage:
    digest: str
    image: Image.Image


def from_base64(text: str, index: int) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise BadImage(f"image {index} is not valid base64") from None


def check_png(data: bytes, index: int, max_side: int) -> CheckedImage:
    if not data.startswith(PNG_SIGNATURE):
        raise BadImage(f"image {index} is not a PNG")
    too_large = f"the limit is {max_side} pixels a side"
    try:
        image = Image.open(io.BytesIO(data))  # reads the header only
    except Image.DecompressionBombError:
        raise BadImage(f"image {index} has too many pixels; {too_large}", status=413) from None
    except (OSError, SyntaxError, ValueError) as error:
        raise BadImage(f"image {index} cannot be decoded: {error}") from None
    width, height = image.size
    if width > max_side or height > max_side:
        raise BadImage(f"image {index} is {width}x{height}; {too_large}", status=413)
    try:
        rgb = image.convert("RGB")
    except (OSError, SyntaxError, ValueError) as error:
        raise BadImage(f"image {index} cannot be decoded: {error}") from None
    return CheckedImage(digest=hashlib.sha256(data).hexdigest(), image=rgb)

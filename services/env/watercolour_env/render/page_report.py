"""The sandbox page's report, parsed as untrusted input.

prelude.js builds the report from records no sketch code can reach, but the
server still treats it as hostile: its size is bounded before parsing, its
shape is checked field by field, and the PNG's own header is read before a
single pixel is decoded. Anything malformed is the sketch's failure, never
`unavailable` (docs/sandbox.md).
"""

from __future__ import annotations

import base64
import binascii
import struct

from pydantic import BaseModel, ConfigDict, Field, ValidationError

_PNG_PREFIX = "data:image/png;base64,"
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_LIMIT = 200  # records of each kind; prelude.js keeps the same limit...
_FIRST_OF_KIND = 100  # ...and past it, the first error of each phase and kind (a few phases, 9 kinds)


class MalformedReport(ValueError):
    """The page's report cannot be trusted; the rollout fails."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ReportedError(_Strict):
    phase: str = Field(max_length=40)
    kind: str = Field(max_length=60)
    message: str = Field(max_length=500)


class ReportedViolation(_Strict):
    code: str = Field(max_length=60)
    message: str = Field(max_length=300)


class Dropped(_Strict):
    """Records the page counted but did not keep, past its limit."""

    errors: int = Field(ge=0)
    violations: int = Field(ge=0)


class CanvasInfo(_Strict):
    width: int
    height: int
    webgl: bool


class PageReport(_Strict):
    dataUrl: str | None  # noqa: N815 - the page's own field names
    canvas: CanvasInfo | None
    errors: list[ReportedError] = Field(max_length=_LIMIT + _FIRST_OF_KIND)
    violations: list[ReportedViolation] = Field(max_length=_LIMIT)
    dropped: Dropped
    brushCalls: dict[str, int] = Field(max_length=_LIMIT)  # noqa: N815
    marks: dict[str, float] = Field(max_length=_LIMIT)


def max_report_chars(canvas_size: int) -> int:
    """The largest honest report: an incompressible RGBA PNG in base64, plus the records."""
    return int(canvas_size * canvas_size * 4 * 1.05 * 4 / 3) + 1_000_000


def parse_report(raw: object, canvas_size: int) -> PageReport:
    if not isinstance(raw, str) or len(raw) > max_report_chars(canvas_size):
        raise MalformedReport("the page's report is not a string of a sensible size")
    try:
        return PageReport.model_validate_json(raw)
    except ValidationError as error:
        raise MalformedReport(f"the page's report does not parse: {error.errors()[0]['msg']}") from None


def decode_png(data_url: str | None, canvas_size: int) -> bytes | None:
    """The PNG's bytes, only when its header says canvas_size x canvas_size; None when there is no picture."""
    if not data_url:
        return None
    if not data_url.startswith(_PNG_PREFIX):
        raise MalformedReport("the canvas was not read as a PNG")
    try:
        png = base64.b64decode(data_url[len(_PNG_PREFIX) :], validate=True)
    except binascii.Error:
        raise MalformedReport("the canvas's PNG is not valid base64") from None
    if len(png) < 24 or png[:8] != _PNG_SIGNATURE or png[12:16] != b"IHDR":
        raise MalformedReport("the canvas's PNG has no PNG header")
    width, height = struct.unpack(">II", png[16:24])
    if (width, height) != (canvas_size, canvas_size):
        raise MalformedReport(f"the canvas's PNG is {width}x{height}; it must be {canvas_size}x{canvas_size}")
    return png

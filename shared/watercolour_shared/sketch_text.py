"""Text a sketch wrote or caused (its messages, names, errors) made safe to hold and send.

A sketch controls these strings: they may hold lone UTF-16 surrogates (which no
UTF-8 encoder accepts, so a JSON answer or a cache write would raise), NULs, or
millions of characters. Every wire field that carries one is typed with these
(render_wire.py), so whatever builds a result, the result encodes and stays small.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, BeforeValidator

MESSAGE_CHARS = 300  # a violation's message
LINE_CHARS = 500  # an error or warning line
MAX_LINES = 50  # error lines in one result
MAX_VIOLATIONS = 100  # violations in one result

_UNSAFE = re.compile("[\x00\ud800-\udfff]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def safe_text(text: str, limit: int) -> str:
    """`text` cut to `limit` characters (saying how many were cut), with every lone surrogate and NUL as U+FFFD."""
    if len(text) > limit:
        text = f"{text[:limit]}... ({len(text) - limit} more characters)"
    return _UNSAFE.sub("\ufffd", text)


def well_formed(value: object) -> object:
    """A reply as it arrived, with its lone surrogates as U+FFFD: JSON may carry them escaped, and
    validation that measures a string (its length limit) refuses one, so this runs before it."""
    return _LONE_SURROGATE.sub("\ufffd", value) if isinstance(value, str) else value


def bounded_lines(lines: list[str]) -> list[str]:
    """At most MAX_LINES lines, each safe; when some are cut, the last line says how many."""
    if len(lines) > MAX_LINES:
        lines = [*lines[: MAX_LINES - 1], f"... and {len(lines) - MAX_LINES + 1} more"]
    return [safe_text(line, LINE_CHARS) for line in lines]


WellFormed = BeforeValidator(well_formed)
SketchMessage = Annotated[str, AfterValidator(lambda text: safe_text(text, MESSAGE_CHARS))]
SketchLine = Annotated[str, AfterValidator(lambda text: safe_text(text, LINE_CHARS))]
SketchLines = Annotated[list[str], AfterValidator(bounded_lines)]

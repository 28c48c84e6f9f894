"""Finds the sketch in a model reply: plain code, or a fenced block with prose around it.

The code it returns is what is gated, rendered and cached: every line
terminator V8 honours is already a plain newline in it, and it always encodes.

It runs on the whole reply, before the gate knows what the reply is, so it is a
scanner of `str.find` calls that each start where the last one stopped: linear in
the reply whatever its shape. (A single fence regex was not: an opener followed by
a long line with no newline backtracked quadratically, and one such reply held
the interpreter lock for minutes.) It reads fences as that regex did: an opener is
three backticks anywhere, then a language tag up to the end of its line; the
block runs to the next three backticks, or to the end of the reply if none follow.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from watercolour_env.gate.js_text import normalise_source
from watercolour_shared.render_wire import Violation
from watercolour_shared.violations import ViolationCode

_FENCE = "```"
_LANG = re.compile(r"[ \t]*([A-Za-z0-9_+.-]*)")  # two disjoint classes, nothing after: cannot backtrack
_CODE_LANGS = {"", "js", "javascript", "p5", "p5js", "jsx", "ts", "typescript"}
# Any of these means the text is meant as a sketch (a refusal contains none).
_SKETCH_MARKERS = ("function setup", "createCanvas", "brush.", "function draw", "setup =", "setup=")


@dataclass(frozen=True)
class ExtractedSketch:
    code: str | None
    violation: Violation | None = None


def extract_sketch(reply: str) -> ExtractedSketch:
    text = normalise_source(reply)
    if _FENCE in text:
        return _from_fences(text)
    if not text.strip() or not any(marker in text for marker in _SKETCH_MARKERS):
        return _no_sketch()
    return ExtractedSketch(code=text.strip("\n"))


def _from_fences(text: str) -> ExtractedSketch:
    blocks = [(body, closed) for lang, body, closed in _fences(text) if lang.lower() in _CODE_LANGS]
    if not blocks:
        return _no_sketch()
    # The block that defines setup is the sketch; otherwise the longest block.
    body, closed = max(blocks, key=lambda block: ("setup" in block[0], len(block[0])))
    if not body.strip() or not any(marker in body for marker in _SKETCH_MARKERS):
        return _no_sketch()
    if not closed:
        return ExtractedSketch(
            code=body,
            violation=Violation(code=ViolationCode.TRUNCATED, message="the code fence is never closed: the reply was cut off"),
        )
    return ExtractedSketch(code=body.strip("\n"))


def _fences(text: str) -> Iterator[tuple[str, str, bool]]:
    """(language tag, body, closed) of every fenced block; each search starts where the last one ended."""
    start = 0
    while (opener := text.find(_FENCE, start)) != -1:
        line_end = text.find("\n", opener + 3)
        if line_end == -1:
            return  # an opener needs a newline after it, and no later one has one either
        lang = _LANG.match(text, opener + 3, line_end).group(1)
        closer = text.find(_FENCE, line_end + 1)
        if closer == -1:
            yield lang, text[line_end + 1 :], False
            return
        yield lang, text[line_end + 1 : closer], True
        start = closer + 3


def _no_sketch() -> ExtractedSketch:
    return ExtractedSketch(
        code=None,
        violation=Violation(code=ViolationCode.NO_SKETCH, message="the reply contains no p5.js sketch"),
    )

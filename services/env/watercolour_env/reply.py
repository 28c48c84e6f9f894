"""Finds the sketch in a model reply: plain code, or a fenced block with prose around it.

The code it returns is what is gated, rendered and cached: every line
terminator V8 honours is already a plain newline in it, and it always encodes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from watercolour_env.gate.js_text import normalise_source
from watercolour_shared.render_wire import Violation
from watercolour_shared.violations import ViolationCode

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+.-]*)[^\n]*\n(.*?)(?:```|\Z)", re.S)
_CODE_LANGS = {"", "js", "javascript", "p5", "p5js", "jsx", "ts", "typescript"}
# Any of these means the text is meant as a sketch (a refusal contains none).
_SKETCH_MARKERS = ("function setup", "createCanvas", "brush.", "function draw", "setup =", "setup=")


@dataclass(frozen=True)
class ExtractedSketch:
    code: str | None
    violation: Violation | None = None


def extract_sketch(reply: str) -> ExtractedSketch:
    text = normalise_source(reply)
    if "```" in text:
        return _from_fences(text)
    if not text.strip() or not any(marker in text for marker in _SKETCH_MARKERS):
        return _no_sketch()
    return ExtractedSketch(code=text.strip("\n"))


def _from_fences(text: str) -> ExtractedSketch:
    blocks = []
    for match in _FENCE.finditer(text):
        lang, body = match.group(1).lower(), match.group(2)
        closed = match.group(0).endswith("```")
        if lang in _CODE_LANGS:
            blocks.append((body, closed))
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


def _no_sketch() -> ExtractedSketch:
    return ExtractedSketch(
        code=None,
        violation=Violation(code=ViolationCode.NO_SKETCH, message="the reply contains no p5.js sketch"),
    )

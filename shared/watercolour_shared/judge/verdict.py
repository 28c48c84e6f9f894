"""The judge's answer: a strict schema for providers that honour it, and a tolerant
parser for those that do not. An answer that cannot be read is a failed call,
never a loss.

The answer is remote text, so reading it is bounded twice: an answer longer than MAX_ANSWER_CHARS is refused
before it is read (a verdict is a line; the call asks for at most 300 tokens), and the parser's work is linear
in the text: it decodes JSON from at most MAX_CANDIDATES places, each the object around a `"winner"` key, and
never from every `{` (which made an answer of a million `{` cost minutes on the event loop)."""

from __future__ import annotations

import json
import re
from typing import Literal

from pydantic import BaseModel, Field


class Verdict(BaseModel):
    winner: Literal["A", "B"]
    reason: str = Field("", max_length=2000)


class UnreadableVerdict(ValueError):
    """The judge answered, but not with a verdict."""


# The schema sent with every call; `winner` comes first so it is decided before the reason.
RESPONSE_FORMAT = {
    "type": "json_schema",
    "json_schema": {
        "name": "verdict",
        "strict": True,
        "schema": {
            "type": "object",
            "properties": {"winner": {"type": "string", "enum": ["A", "B"]}, "reason": {"type": "string"}},
            "required": ["winner", "reason"],
            "additionalProperties": False,
        },
    },
}

MAX_ANSWER_CHARS = 20_000  # 300 tokens are at most a few thousand characters; the rest is not a verdict
MAX_CANDIDATES = 4  # `"winner"` keys tried, each from at most BRACES_BACK of the `{` before it
BRACES_BACK = 3
REASON_CHARS = 2000

_WINNER_KEY = re.compile(r'"winner"\s*:')
_DECODER = json.JSONDecoder()


def parse_verdict(text: str) -> Verdict:
    """Accepts bare JSON, JSON inside a code fence or prose, and `"winner": "a"` in any case."""
    if len(text) > MAX_ANSWER_CHARS:
        raise UnreadableVerdict(f"the judge's answer has {len(text)} characters; a verdict has at most {MAX_ANSWER_CHARS}")
    verdict = find_verdict(text)
    if verdict is None:
        raise UnreadableVerdict(f"no verdict in the judge's answer: {text[:200]!r}")
    return verdict


def find_verdict(text: str) -> Verdict | None:
    """The first verdict object in `text`, or None; linear in the text's length, whatever it holds.

    Tried: the whole text as JSON, then, for each of the first MAX_CANDIDATES `"winner":` keys, the object
    opened by one of the BRACES_BACK nearest `{` before it (the nearest is the verdict's own `{` unless a
    `{` stands in a string before the key). Each try is one decode, at most one pass over the text."""
    stripped = text.strip()
    if stripped.startswith("{"):
        found = _verdict_at(stripped, 0)
        if found is not None:
            return found
    floor = 0  # a `{` before an earlier key was tried already
    for number, key in enumerate(_WINNER_KEY.finditer(text)):
        if number == MAX_CANDIDATES:
            break
        end = key.start()
        for _ in range(BRACES_BACK):
            start = text.rfind("{", floor, end)
            if start < 0:
                break
            found = _verdict_at(text, start)
            if found is not None:
                return found
            end = start
        floor = key.end()
    return None


def _verdict_at(text: str, start: int) -> Verdict | None:
    try:
        data, _ = _DECODER.raw_decode(text, start)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("winner"), str):
        return None
    winner = data["winner"][:40].strip().upper().removeprefix("PAINTING ").removeprefix("IMAGE ")
    if winner not in ("A", "B"):
        return None
    reason = data.get("reason", "")
    return Verdict(winner=winner, reason=str(reason)[:REASON_CHARS])

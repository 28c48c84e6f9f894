"""The judge's answer: a strict schema for providers that honour it, and a tolerant
parser for those that do not. An answer that cannot be read is a failed call,
never a loss."""

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

_OBJECT = re.compile(r"\{.*?\}", re.S)


def parse_verdict(text: str) -> Verdict:
    """Accepts bare JSON, JSON inside a code fence or prose, and `"winner": "a"` in any case."""
    for candidate in [text.strip(), *_OBJECT.findall(text)]:
        try:
            data = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and isinstance(data.get("winner"), str):
            winner = data["winner"].strip().upper().removeprefix("PAINTING ").removeprefix("IMAGE ")
            if winner in ("A", "B"):
                return Verdict(winner=winner, reason=str(data.get("reason", ""))[:2000])
    raise UnreadableVerdict(f"no verdict in the judge's answer: {text[:200]!r}")

"""The policy's system prompt names the medium's methods by hand: they must be exactly the allowlist's,
so widening the allowlist (docs/map.md, "Adding a brush method") fails here until the prompt says so too."""

from __future__ import annotations

import re

from watercolour_env.gate.rules import load_rules
from watercolour_shared.prompts import system_prompt

NUMBERS = {"ten": 10, "eleven": 11, "twelve": 12}


def _medium() -> str:
    return system_prompt().split("The medium:", 1)[1].split("\n\n", 1)[0]


def test_the_prompt_lists_exactly_the_allowed_methods_and_their_number():
    medium = _medium()
    listed = re.findall(r"\bbrush\.(\w+)\(", medium.split("Never call", 1)[0])
    allowed = load_rules().allowed_methods
    assert sorted(listed) == sorted(allowed) and len(listed) == len(set(listed))
    count = re.search(r"only these (\w+) p5\.brush methods", medium)[1]
    assert int(NUMBERS.get(count, count)) == len(allowed)

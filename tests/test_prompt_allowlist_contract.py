"""The policy's system prompt names the medium's methods by hand: they must be exactly the allowlist's,
so widening the allowlist (docs/map.md, "Adding a brush method") fails here until the prompt says so too.
The prose that counts them (README, docs, prompts) must say the allowlist's number; code never writes it."""

from __future__ import annotations

import re

from tests.conftest import ROOT
from watercolour_env.gate.rules import load_rules
from watercolour_shared.prompts import system_prompt

NUMBERS = {"nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
# "10 of the library's methods", "the 10 allowed `brush` methods", "only these ten p5.brush methods", "10-method"
COUNT = re.compile(rf"\b(\d+|{'|'.join(NUMBERS)})[- ](?:(?:of the library's|allowed|p5\.brush|`brush`) ){{0,3}}methods?\b", re.I)
PARTS = ["shared", "services/env", "services/scorer", "trainer", "studio", "demo", "deploy", "bench"]
CODE = {".py", ".js", ".sh", ".yaml", ".toml"}
PROSE = [ROOT / "README.md", ROOT / ".env.example", *(ROOT / "docs").glob("*.md")]
# A reference painting's source says what it was painted with then; a wider medium does not change it.
POOL_SOURCES = ROOT / "services" / "env" / "watercolour_env" / "data" / "pool" / "sources"


def _medium() -> str:
    return system_prompt().split("The medium:", 1)[1].split("\n\n", 1)[0]


def test_the_prompt_lists_exactly_the_allowed_methods_and_their_number():
    medium = _medium()
    listed = re.findall(r"\bbrush\.(\w+)\(", medium.split("Never call", 1)[0])
    allowed = load_rules().allowed_methods
    assert sorted(listed) == sorted(allowed) and len(listed) == len(set(listed))
    count = re.search(r"only these (\w+) p5\.brush methods", medium)[1]
    assert int(NUMBERS.get(count, count)) == len(allowed)


def test_prose_that_counts_the_methods_says_the_allowlists_number():
    allowed = len(load_rules().allowed_methods)
    counted = {
        f"{path.relative_to(ROOT)}: {match[0]}": int(NUMBERS.get(match[1].lower(), match[1]))
        for path in [*PROSE, *(ROOT / "shared" / "watercolour_shared" / "prompts").glob("*.txt")]
        for match in COUNT.finditer(path.read_text(encoding="utf-8"))
    }
    assert any(place.startswith("README.md") for place in counted)  # the pattern still reads the README's count
    assert {place: n for place, n in counted.items() if n != allowed} == {}


def test_code_never_writes_the_number_of_methods():
    """A count in a docstring or a setting's description is a copy nothing checks: code says "the allowed methods"."""
    written = [
        f"{path.relative_to(ROOT)}: {match[0]}"
        for part in PARTS
        for path in (ROOT / part).rglob("*")
        if path.suffix in {".py", ".js", ".sh", ".yaml", ".toml"}
        and ".venv" not in path.parts
        and "node_modules" not in path.parts
        and POOL_SOURCES not in path.parents
        for match in COUNT.finditer(path.read_text(encoding="utf-8"))
    ]
    assert written == []

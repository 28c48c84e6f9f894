"""Each default has one home, and every part reads it from there: a second literal of it in any part's code
fails here, naming the file (docs/map.md, "Changing things")."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT
from watercolour_shared import reward, score_wire, subjects
from watercolour_shared.run_dir import layout

PARTS = ["shared", "services/env", "services/scorer", "trainer", "studio", "demo", "deploy", "bench"]
HOMES = {
    reward.DEFAULT_MIX: reward.__file__,
    subjects.DEFAULT_SUBJECT: subjects.__file__,
    score_wire.DEFAULT_PROMPT: score_wire.__file__,
    layout.ROLLOUTS_SUFFIX: layout.__file__,
}


def sources() -> list:
    return [path for part in PARTS for path in (ROOT / part).rglob("*.py") if ".venv" not in path.parts]


@pytest.mark.parametrize("value", list(HOMES))
def test_the_default_is_written_once(value):
    literal = re.compile(rf"""["'}}]{re.escape(value)}["']""")  # a string, or the end of an f-string
    holders = sorted(str(path.relative_to(ROOT)) for path in sources() if literal.search(path.read_text(encoding="utf-8")))
    assert holders == [str(type(ROOT)(HOMES[value]).relative_to(ROOT))], f"{value!r} is written in {holders}"

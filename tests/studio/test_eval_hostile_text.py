"""Eval's own reading of what a model wrote is linear in its length, whatever it holds: the brush-call sequence
of a reply (diversity.brush_sequence) is found in one pass, an open block comment running to the end."""

from __future__ import annotations

import pytest

from tests.shared.deadline import assert_linear
from watercolour_studio.eval.diversity import brush_sequence

HOSTILE = {
    "open comments": "/* ",  # 180,000 characters of it took the old sequence step most of 81 s
    "open comments on lines": "/*\n",
    "stars": "/**",
    "line comments": "//\n",
    "brush without a call": "brush . ",
    "a long name": "brush.a",
}


@pytest.mark.parametrize("unit", HOSTILE.values(), ids=HOSTILE.keys())
def test_the_brush_call_sequence_is_found_in_linear_time(unit):
    small, large = unit * (45_000 // len(unit)), unit * (180_000 // len(unit))
    assert_linear(brush_sequence, small, large)


def test_comments_are_still_left_out_and_an_open_one_runs_to_the_end():
    code = "brush.fill('red'); /* brush.rect( */ brush.circle(1, 2, 3) // brush.line(\nbrush.set(1) /* brush.flow("
    assert brush_sequence(code) == ["fill", "circle", "set"]

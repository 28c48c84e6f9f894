"""Eval's own reading of what a model wrote is linear in its length, whatever it holds: the brush-call sequence
of a reply (diversity.brush_sequence) is found in one pass, an open block comment running to the end."""

from __future__ import annotations

import time

import pytest

from tests.shared.deadline import deadline
from watercolour_studio.eval.diversity import brush_sequence

HOSTILE = {
    "open comments": "/* ",  # 180,000 characters of it took the old sequence step most of 81 s
    "open comments on lines": "/*\n",
    "stars": "/**",
    "line comments": "//\n",
    "brush without a call": "brush . ",
    "a long name": "brush.a",
}


def _seconds(work) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


@pytest.mark.parametrize("unit", HOSTILE.values(), ids=HOSTILE.keys())
def test_the_brush_call_sequence_is_found_in_linear_time(unit):
    small, large = unit * (45_000 // len(unit)), unit * (180_000 // len(unit))
    with deadline(30):
        took_small = min(_seconds(lambda: brush_sequence(small)) for _ in range(3))
        took_large = min(_seconds(lambda: brush_sequence(large)) for _ in range(3))
    assert took_large < 1.0, took_large
    assert took_large < 8 * took_small + 0.05, (took_small, took_large)


def test_comments_are_still_left_out_and_an_open_one_runs_to_the_end():
    code = "brush.fill('red'); /* brush.rect( */ brush.circle(1, 2, 3) // brush.line(\nbrush.set(1) /* brush.flow("
    assert brush_sequence(code) == ["fill", "circle", "set"]

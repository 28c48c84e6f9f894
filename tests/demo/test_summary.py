"""The demo's summary says what happened to its closing evaluation: its numbers, or why it failed."""

from __future__ import annotations

import pytest

from watercolour_demo.summary import render, verdict_line

THIRD = {"steps": [1], "reward_mean": 0.5, "gate_pass_rate": 1.0, "look": {"zoom": 1.0, "wash": 1.0, "glaze": 1.0}}
TRAINED = {"steps": [], "first_third": THIRD, "last_third": THIRD, "last_third_better": False, "gain": None}
PLACES = {"best_painting": None, "film": "runs/demo/film.jsonl"}


def test_a_failed_evaluation_is_said_beside_the_training_it_followed():
    text = render({**TRAINED, **PLACES, "evaluation": None, "evaluation_failed": "the evaluation failed (exit 2): see eval.log"})
    assert "the evaluation of the final policy failed: the evaluation failed (exit 2): see eval.log" in text
    assert "the last third is not better" in text  # the training's numbers are all still there


def test_no_evaluation_asked_for_says_no_numbers_of_one():
    text = render({**TRAINED, **PLACES, "evaluation": None, "evaluation_failed": None})
    assert "win rate" not in text and "held-out subjects" not in text


EVALUATED = {"win_rate": {"mean": 0.7, "low": 0.56, "high": 0.84, "n": 24}, "better": True}


@pytest.mark.parametrize(
    ("clear", "better", "high", "says"),
    [
        (True, True, 0.84, "yes: the reward rose clearly"),
        (False, True, 0.84, "yes, on held-out subjects; the reward's rise is within its noise"),
        (True, False, 0.7, "not shown: the reward rose, but the held-out evaluation does not"),
        (False, False, 0.7, "not shown: neither"),
        (False, False, 0.4, "no: the final policy loses"),
    ],
)
def test_one_line_squares_the_reward_curve_with_the_evaluation(clear, better, high, says):
    evaluation = {**EVALUATED, "better": better, "win_rate": {**EVALUATED["win_rate"], "high": high}}
    gain = {"reward": 0.1, "standard_error": 0.04, "clear": clear}
    line = verdict_line({**TRAINED, "gain": gain, "evaluation": evaluation, "evaluation_failed": None})
    assert line.startswith("did it learn? " + says.split(":")[0]) and says in line


def test_without_an_evaluation_the_reward_curve_is_not_called_evidence():
    text = render({**TRAINED, **PLACES, "evaluation": None, "evaluation_failed": "the evaluation failed (exit 2)"})
    assert "did it learn? not measured" in text

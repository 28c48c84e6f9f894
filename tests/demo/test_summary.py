"""The demo's summary says what happened to its closing evaluation: its numbers, or why it failed."""

from __future__ import annotations

from watercolour_demo.summary import render

THIRD = {"steps": [1], "reward_mean": 0.5, "gate_pass_rate": 1.0, "look": {"zoom": 1.0, "wash": 1.0, "glaze": 1.0}}
TRAINED = {"steps": [], "first_third": THIRD, "last_third": THIRD, "last_third_better": False, "gain": None}
PLACES = {"best_painting": None, "film": "runs/demo/film.jsonl"}


def test_a_failed_evaluation_is_said_beside_the_training_it_followed():
    text = render({**TRAINED, **PLACES, "evaluation": None, "evaluation_failed": "the evaluation failed (exit 2): see eval.log"})
    assert "the evaluation of the final policy failed: the evaluation failed (exit 2): see eval.log" in text
    assert "the last third is not better" in text  # the training's numbers are all still there


def test_no_evaluation_asked_for_says_nothing_of_one():
    text = render({**TRAINED, **PLACES, "evaluation": None, "evaluation_failed": None})
    assert "evaluation" not in text and "win rate" not in text

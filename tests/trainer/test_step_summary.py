"""A step's numbers from its rollouts: dropped rollouts are counted, never averaged in as 0."""

from __future__ import annotations

import pytest

from watercolour_shared.reward import PRESETS
from watercolour_trainer.step_summary import summarise

WEIGHTS = PRESETS["hps-only"].model_dump()


def rollout(index: int, reward: float | None, group: int = 0, violations: tuple[str, ...] = ()) -> dict:
    if reward is None:
        return {"step": 3, "index": index, "group": group, "reward": None, "evaluation": None}
    passed = not violations
    breakdown = {"total": reward, "gate": float(passed), "length": 0.5, "judge": None, "hps": reward if passed else None}
    render = {"status": "passed" if passed else "failed", "violations": [{"code": code} for code in violations]}
    return {
        "step": 3, "index": index, "group": group, "reward": reward,
        "evaluation": {"render": render, "reward": {**breakdown, "weights": WEIGHTS}},
    }  # fmt: skip


def test_dropped_rollouts_are_counted_and_left_out_of_every_mean():
    metrics = summarise(3, [rollout(0, 0.8), rollout(1, 0.0, violations=("bare_primitive",)), rollout(2, None)], 8)
    assert metrics["rollouts"] == 3 and metrics["dropped"] == 1
    assert metrics["reward_mean"] == pytest.approx(0.4)
    assert metrics["gate_pass_rate"] == pytest.approx(0.5)
    assert metrics["components"] == {"gate": pytest.approx(0.5), "length": pytest.approx(0.5), "hps": pytest.approx(0.8)}
    assert metrics["violations"] == {"bare_primitive": 1}
    assert metrics["below_0_3"] == 1
    assert metrics["best"] == "film/step-000003/rollout-00.png"


def test_a_group_whose_rewards_are_all_equal_is_counted_per_group():
    flat = [rollout(i, 0.0, group=0, violations=("no_sketch",)) for i in range(4)]
    varied = [rollout(4 + i, 0.1 * i, group=1) for i in range(4)]
    metrics = summarise(3, flat + varied, 4)
    assert metrics["groups"] == 2 and metrics["all_equal_groups"] == 1


def test_a_step_with_nothing_scored_has_no_mean_rather_than_zero():
    metrics = summarise(3, [rollout(0, None), rollout(1, None)], 8)
    assert metrics["reward_mean"] is None and metrics["gate_pass_rate"] is None and metrics["best"] is None

"""A step's numbers from its rollouts: dropped rollouts are counted, never averaged in as 0."""

from __future__ import annotations

import pytest

from watercolour_shared.render_wire import Evaluation, RenderResult, RewardBreakdown, Violation
from watercolour_shared.reward import PRESETS
from watercolour_shared.run_dir import RolloutRecord, StepTimings, by_group, mean_reward, summarise

TIMINGS = StepTimings(generation_s=1.0, render_s=2.0, scoring_s=3.0, training_s=4.0)


def rollout(index: int, reward: float | None, group: int = 0, violations: tuple[str, ...] = ()) -> RolloutRecord:
    evaluation = None
    if reward is not None:
        passed = not violations
        evaluation = Evaluation(
            render=RenderResult(
                status="passed" if passed else "failed", violations=[Violation(code=code, message=code) for code in violations]
            ),
            reward=RewardBreakdown(
                total=reward, gate=float(passed), length=0.5, hps=reward if passed else None, weights=PRESETS["hps-only"]
            ),
        )
    return RolloutRecord.answered(
        evaluation, "env down" if evaluation is None else None, step=3, index=index, group=group, prompt="", seed=0, reply=""
    )


def summary(rollouts: list[RolloutRecord]):
    return summarise(3, rollouts, TIMINGS, "2026-11-30T12:00:00+00:00")


def test_dropped_rollouts_are_counted_and_left_out_of_every_mean():
    metrics = summary([rollout(0, 0.8), rollout(1, 0.0, violations=("bare_p5_primitive",)), rollout(2, None)])
    assert metrics.rollouts == 3 and metrics.dropped == 1
    assert metrics.reward_mean == pytest.approx(0.4)
    assert metrics.gate_pass_rate == pytest.approx(0.5)
    assert metrics.components == {"gate": pytest.approx(0.5), "length": pytest.approx(0.5), "hps": pytest.approx(0.8)}
    assert metrics.violations == {"bare_p5_primitive": 1}
    assert metrics.below_0_3 == 1
    assert metrics.best == "film/step-000003/rollout-00.png"
    assert metrics.timings == TIMINGS


def test_a_group_whose_rewards_are_all_equal_is_counted_per_group():
    flat = [rollout(i, 0.0, group=0, violations=("no_sketch",)) for i in range(4)]
    varied = [rollout(4 + i, 0.1 * i, group=1) for i in range(4)]
    metrics = summary(flat + varied)
    assert metrics.groups == 2 and metrics.all_equal_groups == 1


def test_a_step_with_nothing_scored_has_no_mean_rather_than_zero():
    metrics = summary([rollout(0, None), rollout(1, None)])
    assert metrics.reward_mean is None and metrics.gate_pass_rate is None and metrics.best is None


def test_groups_come_apart_in_order_each_with_its_mean_over_scored_rollouts():
    rollouts = [rollout(0, 0.2, group=5), rollout(1, 0.6, group=2), rollout(2, None, group=5), rollout(3, 0.4, group=5)]
    groups = by_group(rollouts)
    assert list(groups) == [2, 5] and [r.index for r in groups[5]] == [0, 2, 3]
    assert mean_reward(groups[5]) == pytest.approx(0.3)  # the dropped rollout is not a 0
    assert mean_reward([rollout(4, None)]) is None
    assert summary(rollouts).groups == 2

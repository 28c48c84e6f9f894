"""A step's numbers, computed from its rollouts in the film, and the two rules they count by."""

from __future__ import annotations

import statistics
from collections import Counter

from watercolour_shared.reward import MIX_TERMS, Term
from watercolour_shared.run_dir.layout import painting_path
from watercolour_shared.run_dir.records import RolloutRecord, StepMetrics, StepTimings

# A painting rewarded below this is a bad one: metrics.jsonl counts them (below_0_3), the gallery files them as low.
LOW_REWARD = 0.3


def all_equal(rewards: list[float]) -> bool:
    """A group whose scored rewards are all equal: GRPO's advantage, and so its gradient, is 0 there."""
    return len(rewards) > 1 and max(rewards) - min(rewards) < 1e-9


def summarise(step: int, rollouts: list[RolloutRecord], timings: StepTimings, time: str) -> StepMetrics:
    scored = [r for r in rollouts if r.reward is not None]
    rewards = [r.reward for r in scored]
    violations = Counter(code for r in rollouts for code in r.violations)
    groups = list(by_group(rollouts).values())
    return StepMetrics(
        step=step,
        rollouts=len(rollouts),
        dropped=len(rollouts) - len(scored),
        reward_mean=statistics.fmean(rewards) if rewards else None,
        reward_std=statistics.pstdev(rewards) if rewards else None,
        components=_component_means(scored),
        gate_pass_rate=(sum(r.scores()["gate"] == 1.0 for r in scored) / len(scored)) if scored else None,
        violations=dict(violations),
        below_0_3=sum(reward < LOW_REWARD for reward in rewards),
        groups=len(groups),
        all_equal_groups=sum(all_equal([r.reward for r in group if r.reward is not None]) for group in groups),
        best=_best(scored),
        timings=timings,
        time=time,
    )


def _component_means(scored: list[RolloutRecord]) -> dict[Term, float]:
    """Means of the terms that carry weight; a term with no score in any rollout is left out, not 0. A rollout with
    revisions that never painted is scored 0 with no evaluation, so no terms: it counts in none."""
    means = {}
    for term in MIX_TERMS:
        values = [r.scores()[term] for r in scored if r.evaluation and r.evaluation.reward.weights.active(term)]
        known = [value for value in values if value is not None]
        if known:
            means[term] = statistics.fmean(known)
    return means


def by_group(rollouts: list[RolloutRecord]) -> dict[int, list[RolloutRecord]]:
    """A step's rollouts by GRPO group (a prompt's rollouts), in group order."""
    groups: dict[int, list[RolloutRecord]] = {}
    for rollout in sorted(rollouts, key=lambda r: r.group):
        groups.setdefault(rollout.group, []).append(rollout)
    return groups


def mean_reward(rollouts: list[RolloutRecord]) -> float | None:
    """The mean over the scored rollouts; None when every one was dropped."""
    rewards = [r.reward for r in rollouts if r.reward is not None]
    return statistics.fmean(rewards) if rewards else None


def _best(scored: list[RolloutRecord]) -> str | None:
    painted = [r for r in scored if r.status == "passed"]
    if not painted:
        return None
    best = max(painted, key=lambda r: r.reward)
    return painting_path(best.step, best.index)

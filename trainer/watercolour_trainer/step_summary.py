"""One step's numbers, computed from its rollouts in the film (the one record the gallery also reads)."""

from __future__ import annotations

import statistics
from collections import Counter

BAD_PAINTING = 0.3
COMPONENTS = ("gate", "length", "judge", "hps")


def summarise(step: int, rollouts: list[dict], num_generations: int) -> dict:
    scored = [r for r in rollouts if r["reward"] is not None]
    rewards = [r["reward"] for r in scored]
    breakdowns = [r["evaluation"]["reward"] for r in scored]
    renders = [r["evaluation"]["render"] for r in rollouts if r["evaluation"]]
    violations = Counter(v["code"] for render in renders for v in render["violations"])
    return {
        "step": step,
        "rollouts": len(rollouts),
        "dropped": len(rollouts) - len(scored),
        "reward_mean": statistics.fmean(rewards) if rewards else None,
        "reward_std": statistics.pstdev(rewards) if rewards else None,
        "components": _component_means(breakdowns),
        "gate_pass_rate": (sum(1 for b in breakdowns if b["gate"] == 1.0) / len(breakdowns)) if breakdowns else None,
        "violations": dict(violations),
        "below_0_3": sum(1 for reward in rewards if reward < BAD_PAINTING),
        "groups": len(_groups(rollouts, num_generations)),
        "all_equal_groups": _all_equal_groups(rollouts, num_generations),
        "best": _best(scored),
    }


def _component_means(breakdowns: list[dict]) -> dict[str, float]:
    """Means of the terms that carry weight; a term with no score in any rollout is left out, not 0."""
    means = {}
    for term in COMPONENTS:
        values = [b[term] for b in breakdowns if b["weights"][term] > 0 and b[term] is not None]
        if values:
            means[term] = statistics.fmean(values)
    return means


def _groups(rollouts: list[dict], num_generations: int) -> list[list[dict]]:
    by_group: dict[int, list[dict]] = {}
    for rollout in rollouts:
        by_group.setdefault(rollout.get("group", rollout["index"] // num_generations), []).append(rollout)
    return list(by_group.values())


def _all_equal_groups(rollouts: list[dict], num_generations: int) -> int:
    """Groups whose scored rewards are all equal: GRPO's advantage, and so its gradient, is 0 there."""
    count = 0
    for group in _groups(rollouts, num_generations):
        rewards = [r["reward"] for r in group if r["reward"] is not None]
        if len(rewards) > 1 and max(rewards) - min(rewards) < 1e-9:
            count += 1
    return count


def _best(scored: list[dict]) -> str | None:
    painted = [r for r in scored if r["evaluation"]["render"]["status"] == "passed"]
    if not painted:
        return None
    best = max(painted, key=lambda r: r["reward"])
    return f"film/step-{best['step']:06d}/rollout-{best['index']:02d}.png"

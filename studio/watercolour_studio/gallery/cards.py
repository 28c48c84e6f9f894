"""A rollout as the gallery shows it: its reward band for filtering, its card, and a step's median painting."""

from __future__ import annotations

from watercolour_shared.run_dir import LOW_REWARD, FilmRollout

HIGH_REWARD = 0.6
# Band names and their labels in the filter: the low band is the run's metrics' below_0_3.
BANDS = {
    "dropped": "dropped",
    "low": f"below {LOW_REWARD}",
    "mid": f"{LOW_REWARD} to {HIGH_REWARD}",
    "high": f"{HIGH_REWARD} and above",
}


def band(rollout: FilmRollout) -> str:
    reward = rollout.record.reward
    if reward is None:
        return "dropped"
    return "low" if reward < LOW_REWARD else "mid" if reward < HIGH_REWARD else "high"


def matches(rollout: FilmRollout, wanted_band: str | None, violation: str | None, group: int | None = None) -> bool:
    """`violation` is a code, or `none` for rollouts without any; `group` one of the step's groups."""
    if wanted_band and band(rollout) != wanted_band:
        return False
    if group is not None and rollout.record.group != group:
        return False
    violations = rollout.record.violations
    if violation == "none":
        return not violations
    return not violation or violation in violations


def card(rollout: FilmRollout) -> dict:
    """What a grid card shows; the full record is fetched when one is opened."""
    record = rollout.record
    return {
        "step": record.step,
        "index": record.index,
        "group": record.group,
        "reward": record.reward,
        "band": band(rollout),
        "status": record.status,
        "dropped_reason": record.dropped_reason,
        "violations": record.violations,
        "breakdown": record.scores(),
        "image": f"/film/{record.step}/{rollout.png.name}" if rollout.png else None,
    }


def median(rollouts: list[FilmRollout]) -> FilmRollout | None:
    """The painting whose reward is the step's median (the lower one of an even count)."""
    painted = sorted(
        (r for r in rollouts if r.png and r.record.reward is not None), key=lambda r: (r.record.reward, r.record.index)
    )
    return painted[(len(painted) - 1) // 2] if painted else None

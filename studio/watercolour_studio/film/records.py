"""One rollout of the film, as the gallery and the checks see it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

COMPONENTS = ("gate", "length", "judge", "hps")
# Reward bands for filtering: 0.3 is the line the run's metrics count paintings below.
LOW, HIGH = 0.3, 0.6
BANDS = ("dropped", "low", "mid", "high")


@dataclass(frozen=True)
class Rollout:
    step: int
    index: int
    record: dict
    png: Path | None
    js: Path | None

    @property
    def reward(self) -> float | None:
        return self.record.get("reward")

    @property
    def group(self) -> int:
        return int(self.record.get("group") or 0)

    @property
    def render(self) -> dict:
        return (self.record.get("evaluation") or {}).get("render") or {}

    @property
    def breakdown(self) -> dict:
        return (self.record.get("evaluation") or {}).get("reward") or {}

    @property
    def violations(self) -> list[str]:
        return [v.get("code", "") for v in self.render.get("violations") or []]

    @property
    def dropped(self) -> bool:
        return self.reward is None

    def band(self) -> str:
        if self.reward is None:
            return "dropped"
        return "low" if self.reward < LOW else "mid" if self.reward < HIGH else "high"

    def matches(self, band: str | None, violation: str | None) -> bool:
        """`violation` is a code, or `none` for rollouts without any."""
        if band and self.band() != band:
            return False
        if violation == "none":
            return not self.violations
        return not violation or violation in self.violations

    def summary(self) -> dict:
        """What a grid card shows; the full record is fetched when one is opened."""
        return {
            "step": self.step,
            "index": self.index,
            "group": self.group,
            "reward": self.reward,
            "band": self.band(),
            "status": self.render.get("status"),
            "dropped_reason": self.record.get("dropped_reason"),
            "violations": self.violations,
            "breakdown": {term: self.breakdown.get(term) for term in COMPONENTS},
            "image": f"/film/{self.step}/{self.png.name}" if self.png else None,
        }


def median(rollouts: list[Rollout]) -> Rollout | None:
    """The painting whose reward is the step's median (the lower one of an even count)."""
    painted = sorted((r for r in rollouts if r.png and r.reward is not None), key=lambda r: (r.reward, r.index))
    return painted[(len(painted) - 1) // 2] if painted else None

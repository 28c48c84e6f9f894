"""An episode with revisions, as an OpenEnv rubric: each painting's reward goes in, the episode's comes out at the
end (docs/revisions.md). The rule itself is `revision_reward` (shared), a pure function; this is its bookkeeping.

OpenEnv's `TrajectoryRubric` fits: it holds the episode's turns and scores the trajectory when the last one is done.
Its turns here are the paintings' rewards, never the observation the policy reads (that one carries no reward until
the end), and its answer before the end is None, not 0: a turn has no reward of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from openenv.core.rubrics.trajectory import TrajectoryRubric

from watercolour_shared.reward import revision_reward


@dataclass(frozen=True)
class Turn:
    """One painting of the episode, as the rubric reads it: its reward (None: our infrastructure failed) and whether
    it was the last."""

    total: float | None
    done: bool


class RevisionRubric(TrajectoryRubric):
    def __init__(self, bonus: float = 0.0):
        super().__init__(intermediate_reward=None)  # type: ignore[arg-type] - no reward mid-episode, not 0
        self.bonus = bonus

    def score_trajectory(self, trajectory: list[tuple[Any, Turn]]) -> float | None:  # type: ignore[override]
        return revision_reward([turn.total for _, turn in trajectory], self.bonus)

    def compute_step_rewards(self) -> list[float | None]:  # type: ignore[override]
        """The episode's reward on its last turn, None on the others: no turn earns one alone."""
        if not self._trajectory:
            return []
        return [None] * (len(self._trajectory) - 1) + [self.score_trajectory(self._trajectory)]

    def begin(self, bonus: float) -> None:
        """A new episode, with its own bonus."""
        self.bonus = bonus
        self.reset()

    @property
    def first_total(self) -> float | None:
        return self._trajectory[0][1].total if self._trajectory else None

"""GDPO: one reward function per term of the mix, for TRL's `multi_objective_aggregation="normalize_then_sum"`.

TRL then normalises each term within its group before weighting it, so a term whose values spread little (the
HPS score here, against the judge's wins and losses) still moves the advantage by its weight. The environment is
asked once a batch: the first term's function scores it (EnvReward.records, which writes the film), the others
read the same answer. A dropped rollout is None on every term, so TRL leaves it out whole; a failed gate is 0 on
every term, as its reward is (watercolour_shared.reward.term_values). With TRL's default aggregation the launch
script keeps the one function that returns the mixed reward, and nothing here runs.
"""

from __future__ import annotations

import asyncio

from watercolour_shared.reward import MIX_TERMS, MixWeights, Term
from watercolour_shared.run_dir import RolloutRecord
from watercolour_trainer.env_reward import EnvReward

GDPO = "normalize_then_sum"


class _BatchScores:
    """The environment's answer for the batch TRL is scoring now, shared by every term's function."""

    def __init__(self, reward: EnvReward):
        self.reward = reward
        self._completions = None  # the batch the task below scores (TRL hands every function the same list)
        self._task: asyncio.Task | None = None

    async def records(self, prompts, completions, trainer_state, episode_id, subject) -> list[RolloutRecord]:
        if self._completions is not completions:
            self._completions = completions
            self._task = asyncio.ensure_future(self.reward.records(prompts, completions, trainer_state, episode_id, subject))
        return await self._task


class TermReward:
    def __init__(self, batch: _BatchScores, term: Term):
        self.batch = batch
        self.term = term
        self.__name__ = term  # TRL logs rewards/<name>/mean per function

    async def __call__(self, prompts, completions, trainer_state, episode_id, subject, **_) -> list[float | None]:
        records = await self.batch.records(prompts, completions, trainer_state, episode_id, subject)
        values = [record.term_values() for record in records]
        return [None if value is None else value[self.term] for value in values]


def term_reward_functions(reward: EnvReward, weights: MixWeights) -> tuple[list[TermReward], list[float]]:
    """The reward functions, one per term in the mix's order, and the weights TRL sums their normalised values by."""
    batch = _BatchScores(reward)
    return [TermReward(batch, term) for term in MIX_TERMS], [weights.weight(term) for term in MIX_TERMS]

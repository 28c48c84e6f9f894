"""The reward function GRPO calls: each batch of completions goes to the environment's batch call.

It returns one value per completion: the mixed reward, or None when the environment reports
the reward unavailable or the call failed; TRL then leaves that rollout out of its group's
baseline. A rollout is never scored 0 for our infrastructure's failure. Every rollout goes
into the film as it is scored.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

from watercolour_shared.render_wire import EpisodeOptions
from watercolour_shared.run_dir import RolloutRecord, RunWriter, StepTimings
from watercolour_trainer.replicas import EnvReplicas, Outcome

log = logging.getLogger(__name__)


def step_seed(run_seed: int, step: int) -> int:
    """One seed per step: the group's renders and judge references depend on it, the next step draws anew."""
    return (run_seed * 1_000_003 + step) % (2**31 - 1)


def completion_text(completion) -> str:
    if isinstance(completion, str):
        return completion
    return "".join(message.get("content") or "" for message in completion if message.get("role") == "assistant")


def _user_message(prompt) -> str:
    if isinstance(prompt, str):
        return prompt
    return next((m["content"] for m in reversed(prompt) if m.get("role") == "user"), "")


@dataclass
class StepClock:
    """Wall-clock marks of the current step, for the generation / render / scoring / training split."""

    step_began: float = 0.0
    rewards_began: float = 0.0
    rewards_ended: float = 0.0
    renders_done_s: float = 0.0

    def split(self, step_ended: float) -> StepTimings:
        env_s = self.rewards_ended - self.rewards_began
        render_s = min(env_s, self.renders_done_s)
        return StepTimings(
            generation_s=round(self.rewards_began - self.step_began, 3),
            render_s=round(render_s, 3),
            scoring_s=round(env_s - render_s, 3),
            training_s=round(step_ended - self.rewards_ended, 3),
        )


class FilmIndex:
    """Each rollout's index in its step's film. Set for multi-GPU runs: each process numbers its share of a step after
    the processes before it."""

    def __init__(self):
        self.process_index = 0
        self.rollouts_per_process = 0
        self._written: dict[int, int] = {}

    def next(self, step: int) -> int:
        index = self.process_index * self.rollouts_per_process + self._written.get(step, 0)
        self._written[step] = self._written.get(step, 0) + 1
        return index


class EnvReward:
    __name__ = "watercolour"  # TRL names reward functions by __name__ in its logs

    def __init__(self, replicas: EnvReplicas, episode: EpisodeOptions, run: RunWriter, clock: StepClock, seed: int):
        self.replicas = replicas
        self.episode = episode
        self.run = run
        self.clock = clock
        self.seed = seed
        self.index = FilmIndex()

    async def __call__(self, prompts, completions, trainer_state, episode_id, subject, **_) -> list[float | None]:
        records = await self.records(prompts, completions, trainer_state, episode_id, subject)
        return [record.reward for record in records]

    async def records(self, prompts, completions, trainer_state, episode_id, subject) -> list[RolloutRecord]:
        """Scores the batch through the environment and writes each rollout into the film: its records, in order."""
        step = trainer_state.global_step + 1
        seed = step_seed(self.seed, step)
        replies = [completion_text(completion) for completion in completions]
        # One call per group (its own subject), all in flight at once over every replica.
        groups = {group: [i for i, g in enumerate(episode_id) if g == group] for group in dict.fromkeys(episode_id)}
        process = self.index.process_index
        log.info("process %d scores %d rollouts of step %d (groups %s)", process, len(replies), step, list(groups))
        self.clock.rewards_began = time.perf_counter()
        calls = [self._group(members, replies, subject, seed) for members in groups.values()]
        answers = await asyncio.gather(*calls)
        self.clock.rewards_ended = time.perf_counter()
        by_index = {
            i: outcome
            for members, answer in zip(groups.values(), answers, strict=True)
            for i, outcome in zip(members, answer, strict=True)
        }
        outcomes = [by_index[i] for i in range(len(replies))]
        # When the step's last painting was done: a render's time waiting for a browser counts as render time.
        timings = [outcome.evaluation.render.timings for outcome in outcomes if outcome.evaluation]
        self.clock.renders_done_s = max((t.queue_ms + t.total_ms for t in timings), default=0.0) / 1000
        return [
            self._keep(step, seed, _user_message(prompt), reply, outcome, group)
            for prompt, reply, outcome, group in zip(prompts, replies, outcomes, episode_id, strict=True)
        ]

    async def _group(self, members: list[int], replies: list[str], subjects: list[str], seed: int) -> list[Outcome]:
        episode = EpisodeOptions.model_validate({**self.episode.model_dump(), "subject": subjects[members[0]]})
        return await self.replicas.evaluate([replies[i] for i in members], seed, episode)

    def _keep(self, step: int, seed: int, prompt: str, reply: str, outcome: Outcome, group: int) -> RolloutRecord:
        index = self.index.next(step)
        record = RolloutRecord.answered(
            outcome.evaluation, outcome.failure, step=step, index=index, group=group, prompt=prompt, seed=seed, reply=reply
        )
        self.run.record(record)
        return record

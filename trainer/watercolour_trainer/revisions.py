"""Rollouts with revisions on the launch script's own generation path (`--revisions N`; docs/revisions.md, "The launch
script").

The mechanism examples/trl_grpo.py trains with: TRL's tool calling, GRPOTrainer's `environment_factory` giving each
rollout a `WatercolourToolEnv` (one WebSocket session of the environment, one episode of N revisions a rollout). The
policy paints by calling the `paint` tool, reads the critique of its painting as the tool's answer, and paints again,
N times; TRL generates the turns. What the trainer adds:

- `FilmedToolEnv` keeps every turn of its episode (the sketch sent, the environment's render, critique and verdict),
  and asks the environment for every turn's painting (the film keeps it; the policy sees only the critique's text);
- `RevisionReward`, the run's reward function (named `watercolour`, as the single-turn one): each rollout's episode
  reward (`WatercolourToolEnv.get_reward`: the last painting's, plus `revision_bonus` x (last - first); None when our
  infrastructure lost any turn, which TRL drops, never 0), and each rollout into the film with its turns;
- `ToolEnvs`, the factory: one environment a rollout, spread over the run's environment replicas, closed at the end.

Each rollout's episode renders every turn with its dataset row's `seed`, so the rollouts of a GRPO group (one row)
share it on every turn.
"""

from __future__ import annotations

import itertools
import time

from watercolour_env.models import WatercolourAction, WatercolourObservation
from watercolour_env.tool_env import WatercolourToolEnv
from watercolour_shared.prompts import user_prompt
from watercolour_shared.render_wire import Evaluation
from watercolour_shared.run_dir import RolloutRecord, RolloutTurn, RunWriter
from watercolour_trainer.env_reward import FilmIndex, StepClock, completion_text

# Why a rollout whose episode reward is None was dropped, when no turn of it says more.
LOST_EPISODE = "the environment lost a painting of the episode (its session, or a term at the last painting)"


class FilmedToolEnv(WatercolourToolEnv):
    """`WatercolourToolEnv` that keeps each turn of its episode for the film."""

    # TRL scores an environment that defines `get_reward` itself, as one more reward: here RevisionReward scores each
    # episode (through WatercolourToolEnv.get_reward) and films it, so this environment offers TRL none.
    get_reward = None

    def __init__(self, base_url: str, **options):
        super().__init__(base_url, **options)
        self.turns: list[RolloutTurn] = []
        self.evaluation: Evaluation | None = None  # the last painting's render and reward breakdown
        self._handing_in = False

    def reset(self, **row) -> str:
        self.turns, self.evaluation = [], None
        return super().reset(**row)

    def _step(self, action: WatercolourAction) -> WatercolourObservation:
        """Every turn asks for its painting: the film keeps it, and the policy is handed it only with `images`."""
        try:
            observation = super()._step(action.model_copy(update={"include_png": True}))
        except Exception as error:  # ours: the tool's answer says so, and the episode is None
            self.turns.append(self._turn(action, None, f"{type(error).__name__}: {error}"))
            raise
        self.turns.append(self._turn(action, observation))
        if observation.done and observation.render and observation.breakdown:
            self.evaluation = Evaluation(render=observation.render, reward=observation.breakdown)
        return observation

    def _hand_in(self) -> None:
        self._handing_in = True
        try:
            super()._hand_in()
        finally:
            self._handing_in = False

    def _turn(self, action: WatercolourAction, observation: WatercolourObservation | None, failure: str | None = None):
        render = observation.render if observation else None
        if observation and observation.status == "unavailable":
            failure = observation.unavailable_reason or "the painting could not be made"
        return RolloutTurn(
            turn=len(self.turns),
            code=(render.code if render else None) or action.reply,
            render=render,
            critique=observation.critique if observation else None,
            critique_source=observation.critique_source if observation else None,
            critique_version=observation.critique_version if observation else None,
            revisions_left=observation.revisions_left if observation else None,
            handed_in=self._handing_in,
            failure=failure,
        )


class ToolEnvs:
    """TRL's `environment_factory`: one FilmedToolEnv per rollout (TRL keeps them and resets each for its next rollout),
    each on the next of the run's environment replicas in turn."""

    def __init__(self, urls: list[str], **options):
        self._urls = itertools.cycle(urls)
        self._options = options
        self.made: list[FilmedToolEnv] = []

    def __call__(self) -> FilmedToolEnv:
        env = FilmedToolEnv(next(self._urls), **self._options)
        self.made.append(env)
        return env

    def close(self) -> None:
        for env in self.made:
            env.__exit__(None, None, None)


class RevisionReward:
    __name__ = "watercolour"  # TRL names reward functions by __name__ in its logs: the single-turn reward's name

    def __init__(self, run: RunWriter, clock: StepClock):
        self.run = run
        self.clock = clock
        self.index = FilmIndex()

    def __call__(self, completions, trainer_state, episode_id, subject, seed, environments, **_) -> list[float | None]:
        step = trainer_state.global_step + 1
        self.clock.rewards_began = time.perf_counter()
        # A rollout that stopped before its last revision hands in its last painting here (the environment's cache).
        rewards = [WatercolourToolEnv.get_reward(env) for env in environments]
        self.clock.rewards_ended = time.perf_counter()
        handed_in = [turn.render.timings for env in environments for turn in env.turns if turn.handed_in and turn.render]
        self.clock.renders_done_s = max((t.queue_ms + t.total_ms for t in handed_in), default=0.0) / 1000
        rollouts = zip(environments, rewards, completions, episode_id, subject, seed, strict=True)
        for env, reward, completion, group, painted, row_seed in rollouts:
            fields = {"step": step, "index": self.index.next(step), "group": group, "prompt": user_prompt(painted)}
            self.run.record(episode_record(env, reward, completion, seed=row_seed, **fields))
        return rewards


def episode_record(env: FilmedToolEnv, reward: float | None, completion, **fields) -> RolloutRecord:
    """The rollout's record (`fields`: step, index, group, prompt, seed): the episode's reward, its last painting's
    evaluation, every turn. Its `reply` is the last sketch the policy sent to paint (the one judged), or its text when
    it painted nothing."""
    sent = [turn for turn in env.turns if not turn.handed_in]
    reply = sent[-1].code if sent else completion_text(completion)
    dropped = None
    if reward is None:
        dropped = next((turn.failure for turn in env.turns if turn.failure), None) or LOST_EPISODE
    return RolloutRecord(**fields, reward=reward, dropped_reason=dropped, reply=reply, evaluation=env.evaluation, turns=env.turns)

"""The environment in your own TRL script: an `environment_factory` for TRL's GRPOTrainer.

    trainer = GRPOTrainer(
        model=...,
        train_dataset=Dataset.from_dict({"prompt": [...], "subject": [...], "seed": [...]}),
        environment_factory=partial(WatercolourToolEnv, base_url="http://localhost:8000"),
        args=GRPOConfig(...),
    )

TRL makes one instance per rollout and reuses it across batches. `reset(**row)` starts an episode for the row's
`subject` and returns its brief, which TRL appends to the user message; the model paints by calling the `paint`
tool with its sketch; `get_reward` hands TRL the environment's reward (logged under this class's name).

The rules of an episode:

- Its subject, seed and reward weights are chosen once, at `reset`: the seed is the row's `seed` when the dataset
  has that column (so the rollouts of a GRPO group, which share a row, share the seed), else drawn once. Every
  painting of the episode is rendered with that seed, so painting the same sketch again gives the same picture.
- The model may call `paint` more than once; the last painting counts. A rollout that never paints scores 0, the
  model's doing; one whose last painting our infrastructure could not judge scores None, which TRL leaves out of
  the loss, never 0.
- The tool's answer says whether the sketch passed the gate and, if not, what it broke. It never tells the reward:
  the reward goes to TRL through `get_reward` alone, so a policy cannot repaint until a render happens to score well.

Each instance holds one OpenEnv WebSocket session (the server allows `max_sessions`, /health says how many are
open), driven synchronously as TRL calls tools. When the session is lost under a painting (a call timed out, the
server closed an idle session), the next painting begins the same episode again, same subject, seed and weights,
on a fresh socket, so no late answer of an earlier call is ever read as its own; if that fails too, the painting
is None, never a reward of another episode.
"""

from __future__ import annotations

import secrets

from pydantic import ValidationError

from watercolour_env.client import SessionLost, WatercolourEnv
from watercolour_env.models import WatercolourAction, WatercolourObservation

# What the model is told about the tool, after the environment's brief.
TOOL_BRIEF = (
    "Call the `paint` tool with your whole p5.brush sketch; its answer says whether the sketch passed the gate. "
    "You may paint again: your last painting is the one judged."
)
MAX_SEED = 2**31 - 1


class WatercolourToolEnv:
    def __init__(self, base_url: str, weights: dict[str, float] | None = None, **client_options):
        """`weights`: the reward terms' weights for every episode (the server's default mix when None)."""
        self._env = WatercolourEnv(base_url=base_url, **client_options)
        self._weights = weights
        self._subject: str | None = None
        self._seed: int | None = None
        self._reward: float | None = 0.0
        self._episode_begun = False  # whether the server holds this episode, ready for a painting

    def reset(self, subject: str | None = None, seed: int | None = None, **row) -> str:
        """A new episode for the dataset row's `subject` (the server's default subject when the row has none), rendered
        with the row's `seed` (drawn once here when the row has none)."""
        if seed is not None and not 0 <= int(seed) <= MAX_SEED:
            raise ValueError(f"a row's seed is from 0 to {MAX_SEED}, not {seed}")
        self._subject = subject
        self._seed = int(seed) if seed is not None else secrets.randbelow(MAX_SEED + 1)
        self._reward = 0.0  # until it paints
        return f"\n\n{self._begin().prompt}\n{TOOL_BRIEF}"

    def paint(self, sketch: str) -> str:
        """
        Render a p5.brush watercolour sketch in the environment; the last painting is the one judged.

        Args:
            sketch: The whole p5.brush JavaScript sketch, with its setup() and draw() functions.

        Returns:
            Whether the sketch passed the gate, and what it broke if not.
        """
        try:
            action = WatercolourAction(reply=sketch, seed=self._seed)
        except ValidationError as error:  # the model's doing (a reply past the wire's bound): scored 0
            self._reward = 0.0
            return f"The sketch was refused: {error.errors()[0]['msg']}."
        try:
            result = self._paint(action)
        except Exception as error:  # noqa: BLE001 - the environment did not answer: ours, never the painting's
            self._episode_begun = False  # the next painting begins this episode again, on a fresh socket
            self._reward = None
            return f"The painting could not be judged ({type(error).__name__}); it is not held against you."
        self._reward = result.reward
        return _feedback(result.observation, result.reward)

    def get_reward(self) -> float | None:
        return self._reward

    # A context manager, not a `close` method: TRL would offer every public method to the model as a tool.
    def __enter__(self) -> WatercolourToolEnv:
        return self

    def __exit__(self, *exc) -> None:
        self._env.close()

    def _paint(self, action: WatercolourAction):
        """One painting in this episode. The server's episode is one painting, so a second one begins it again
        (same subject, seed and weights); a session lost since the last call is begun again once."""
        for attempt in (1, 2):
            if not self._episode_begun:
                self._begin()
            self._episode_begun = False
            try:
                return self._env.step(action)
            except SessionLost:
                if attempt == 2:
                    raise

    def _begin(self) -> WatercolourObservation:
        result = self._env.reset(subject=self._subject, weights=self._weights, seed=self._seed)
        self._episode_begun = True
        return result.observation


def _feedback(observation: WatercolourObservation, reward: float | None) -> str:
    if reward is None:
        return f"The painting could not be judged ({observation.unavailable_reason}); it is not held against you."
    if observation.status == "failed":
        broken = "; ".join(violation.message for violation in observation.render.violations) if observation.render else ""
        return f"The sketch failed the gate: {broken or 'it did not render'}."
    return "The sketch passed the gate."

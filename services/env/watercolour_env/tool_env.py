"""The environment in your own TRL script: an `environment_factory` for TRL's GRPOTrainer.

    trainer = GRPOTrainer(
        model=...,
        train_dataset=Dataset.from_dict({"prompt": [...], "subject": [...]}),
        environment_factory=partial(WatercolourToolEnv, base_url="http://localhost:8000"),
        args=GRPOConfig(...),
    )

TRL makes one instance per rollout and reuses it across batches. `reset(**row)` starts an episode for the row's
`subject` and returns its brief, which TRL appends to the user message; the model paints by calling the `paint`
tool with its sketch; `get_reward` hands TRL the environment's reward for the last painting (logged under this
class's name). A rollout that never paints scores 0, the model's doing; one whose painting our infrastructure
could not judge scores None, which TRL leaves out of the loss, never 0.

Each instance holds one OpenEnv WebSocket session (the server allows `max_sessions`, /health says how many are
open), driven synchronously as TRL calls tools.
"""

from __future__ import annotations

from pydantic import ValidationError

from watercolour_env.client import WatercolourEnv
from watercolour_env.models import WatercolourAction, WatercolourObservation

# What the model is told about the tool, after the environment's brief.
TOOL_BRIEF = "Call the `paint` tool once with your whole p5.brush sketch; its answer says how the painting did."


class WatercolourToolEnv:
    def __init__(self, base_url: str, weights: dict[str, float] | None = None, **client_options):
        """`weights`: the reward terms' weights for every episode (the server's default mix when None)."""
        self._env = WatercolourEnv(base_url=base_url, **client_options)
        self._weights = weights
        self._subject: str | None = None
        self._reward: float | None = 0.0
        self._episode_done = True

    def reset(self, subject: str | None = None, **row) -> str:
        """A new episode for the dataset row's `subject` (the server's default subject when the row has none)."""
        self._subject = subject
        self._reward = 0.0  # until it paints
        return f"\n\n{self._begin().prompt}\n{TOOL_BRIEF}"

    def paint(self, sketch: str) -> str:
        """
        Render a p5.brush watercolour sketch in the environment and score the painting.

        Args:
            sketch: The whole p5.brush JavaScript sketch, with its setup() and draw() functions.

        Returns:
            Whether the sketch passed the gate, what it broke if not, and the painting's reward.
        """
        try:
            action = WatercolourAction(reply=sketch)
        except ValidationError as error:  # the model's doing (a reply past the wire's bound): scored 0
            self._reward = 0.0
            return f"The sketch was refused: {error.errors()[0]['msg']}. Reward 0.00."
        try:
            if self._episode_done:
                self._begin()  # an episode is one painting: a second call paints again, and the last one counts
            result = self._env.step(action)
        except Exception as error:  # noqa: BLE001 - the environment did not answer: ours, never the painting's
            self._reward = None
            return f"The painting could not be judged ({type(error).__name__}); it is not held against you."
        self._episode_done = True
        self._reward = result.reward
        return _feedback(result.observation, result.reward)

    def get_reward(self) -> float | None:
        return self._reward

    # A context manager, not a `close` method: TRL would offer every public method to the model as a tool.
    def __enter__(self) -> WatercolourToolEnv:
        return self

    def __exit__(self, *exc) -> None:
        self._env.close()

    def _begin(self) -> WatercolourObservation:
        result = self._env.reset(subject=self._subject, weights=self._weights)
        self._episode_done = False
        return result.observation


def _feedback(observation: WatercolourObservation, reward: float | None) -> str:
    if reward is None:
        return f"The painting could not be judged ({observation.unavailable_reason}); it is not held against you."
    if observation.status == "failed":
        broken = "; ".join(violation.message for violation in observation.render.violations) if observation.render else ""
        return f"The sketch failed the gate: {broken or 'it did not render'}. Reward {reward:.2f}."
    return f"The sketch passed the gate. Reward {reward:.2f}."

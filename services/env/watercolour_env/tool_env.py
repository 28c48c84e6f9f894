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

With `revisions=N` (docs/revisions.md) an episode is N + 1 paintings in one server episode. Each of the first N
answers with a critique of the painting (what it covers, its washes, values, contrast and palette, what the gate
refused) and the revisions left, and with `images=True` the painting itself, as an image block a vision-language
policy reads; never the reward. The (N + 1)th ends the episode; a later call answers that no revisions remain and
paints nothing. `get_reward` is the episode's: the last painting's, plus `revision_bonus` x (last - first). A
rollout that stops early hands in its last painting for each revision it left (the same render, from the cache),
so the last painting counts there too. A painting our infrastructure lost, or a session lost between paintings (its
earlier paintings' rewards went with it), makes the episode None; the next painting begins the same episode again,
with the revisions that remain, so the model still reads its critiques.

Each instance holds one OpenEnv WebSocket session (the server allows `max_sessions`, /health says how many are
open), driven synchronously as TRL calls tools. When the session is lost under a painting (a call timed out, the
server closed an idle session), the next painting begins the same episode again, same subject, seed and weights,
on a fresh socket, so no late answer of an earlier call is ever read as its own; if that fails too, the painting
is None, never a reward of another episode.
"""

from __future__ import annotations

import base64
import io
import secrets

from pydantic import ValidationError

from watercolour_env.client import SessionLost, WatercolourEnv
from watercolour_env.models import WatercolourAction, WatercolourObservation
from watercolour_shared.render_wire import MAX_REPLY_CHARS, MAX_REVISIONS

# What the model is told about the tool, after the environment's brief.
TOOL_BRIEF = (
    "Call the `paint` tool with your whole p5.brush sketch; its answer says whether the sketch passed the gate. "
    "You may paint again: your last painting is the one judged."
)
REVISION_BRIEF = (
    "Call the `paint` tool with your whole p5.brush sketch. Its answer is a critique of the painting{image}; you may "
    "then revise the sketch and paint again, {revisions} time(s) in all. Your last painting is the one judged."
)
MAX_SEED = 2**31 - 1
# The painting a vision-language policy sees, in pixels a side. Qwen3.5 and Qwen3-VL read 16-px patches merged 2 x 2,
# so a token is 32 x 32 px: 256 x 256 is 8 x 8 = 64 image tokens (66 with the vision start and end tokens), kept as
# it is by a processor whose min_pixels is at most 256 x 256. Qwen2-VL and Qwen2.5-VL (14-px patches,
# 28 px a token) round it to 252 x 252: 9 x 9 = 81 tokens. Each revision's answer costs these tokens, plus the
# critique's text (about 150), against the completion budget (max_completion_length).
IMAGE_SIDE = 256


class WatercolourToolEnv:
    def __init__(
        self,
        base_url: str,
        weights: dict[str, float] | None = None,
        revisions: int = 0,
        images: bool = False,
        revision_bonus: float = 0.0,
        image_side: int = IMAGE_SIDE,
        references: int | None = None,
        **client_options,
    ):
        """`weights`: the reward terms' weights for every episode (the server's default mix when None). `references`:
        the judge's references per painting (the server's default when None). `revisions`:
        paintings after the first, each after a critique (0: one painting per episode, as before). `images`: with
        revisions, the tool's answer also holds the painting, `image_side` px a side, for a vision-language policy.
        `revision_bonus`: alpha in r_last + alpha x (r_last - r_first)."""
        if not 0 <= revisions <= MAX_REVISIONS:
            raise ValueError(f"revisions are from 0 to {MAX_REVISIONS}, not {revisions}")
        self._env = WatercolourEnv(base_url=base_url, **client_options)
        self._weights = weights
        self._references = {"references": references} if references is not None else {}
        self._revisions, self._images, self._bonus, self._side = revisions, images, revision_bonus, image_side
        self._subject: str | None = None
        self._seed: int | None = None
        self._reward: float | None = 0.0
        self._episode_begun = False  # whether the server holds this episode, ready for a painting
        # With revisions: paintings made, the last one sent, whether the episode ended or lost a painting.
        self._painted, self._last_action, self._done, self._lost = 0, None, False, False

    def reset(self, subject: str | None = None, seed: int | None = None, **row) -> str:
        """A new episode for the dataset row's `subject` (the server's default subject when the row has none), rendered
        with the row's `seed` (drawn once here when the row has none)."""
        if seed is not None and not 0 <= int(seed) <= MAX_SEED:
            raise ValueError(f"a row's seed is from 0 to {MAX_SEED}, not {seed}")
        self._subject = subject
        self._seed = int(seed) if seed is not None else secrets.randbelow(MAX_SEED + 1)
        self._reward = 0.0  # until it paints
        self._painted, self._last_action, self._done, self._lost = 0, None, False, False
        prompt = self._begin().prompt
        if not self._revisions:
            return f"\n\n{prompt}\n{TOOL_BRIEF}"
        brief = REVISION_BRIEF.format(image=" and the painting itself" if self._images else "", revisions=self._revisions)
        return f"\n\n{prompt}\n{brief}"

    def paint(self, sketch: str) -> str | list[dict]:
        """
        Render a p5.brush watercolour sketch in the environment; the last painting is the one judged.

        Args:
            sketch: The whole p5.brush JavaScript sketch, with its setup() and draw() functions.

        Returns:
            Whether the sketch passed the gate, and what it broke if not; when revisions are allowed, a critique of the painting.
        """
        if self._revisions:
            return self._revise(sketch)
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
        if self._revisions and not self._done and not self._lost and self._last_action is not None:
            self._hand_in()
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
        # Begun again after a lost session, the episode allows the paintings that remain.
        revised = {"revisions": self._revisions - self._painted, "revision_bonus": self._bonus} if self._revisions else {}
        result = self._env.reset(subject=self._subject, weights=self._weights, seed=self._seed, **self._references, **revised)
        self._episode_begun = True
        return result.observation

    def _revise(self, sketch: str) -> str | list[dict]:
        """One painting of an episode with revisions: the critique and the revisions left, never the reward."""
        if self._done:
            return "No revisions remain: your last painting is the one judged. Nothing was painted."
        try:  # a reply past the wire's bound is sent at the bound: still far past the gate's, a failed painting (0)
            action = WatercolourAction(reply=sketch[:MAX_REPLY_CHARS], seed=self._seed, include_png=self._images)
        except ValidationError as error:
            return f"The sketch was refused: {error.errors()[0]['msg']}. It used no revision."
        self._last_action = action
        try:
            observation = self._step(action)
        except Exception as error:  # noqa: BLE001 - the environment did not answer: ours, never the painting's
            self._episode_begun, self._lost, self._reward = False, True, None
            self._painted += 1
            self._done = self._painted > self._revisions
            return f"The painting could not be judged ({type(error).__name__}); it is not held against you.{self._remaining()}"
        self._painted += 1
        if observation.done:
            self._done = True
            self._reward = None if self._lost else observation.reward
            # The painting's verdict alone: the episode's reward, and why it is None when it is, stay with TRL.
            lost = observation.status == "unavailable"
            verdict = "The painting could not be made; it is not held against you." if lost else _feedback(observation, 0.0)
            return f"{verdict} That was your last painting: no revisions remain."
        text = f"{observation.critique}{self._remaining()}"
        if not self._images or not observation.render or not observation.render.png_base64:
            return text
        return [{"type": "image", "image": _picture(observation.render.png_base64, self._side)}, {"type": "text", "text": text}]

    def _step(self, action: WatercolourAction) -> WatercolourObservation:
        """A turn on the episode's session; a session lost before it (nothing sent) loses the earlier paintings'
        rewards with it, so the episode is None, and this painting begins the same episode again to be critiqued."""
        if not self._episode_begun:
            self._begin()
        try:
            return self._env.step(action).observation
        except SessionLost:
            self._lost, self._reward = True, None
            self._begin()
            return self._env.step(action).observation

    def _hand_in(self) -> None:
        """A rollout that stopped before its last revision: its last painting again for each one left (a cached
        render), so the episode ends, and is scored, on it."""
        try:
            for _ in range(self._revisions + 1 - self._painted):
                observation = self._step(self._last_action.model_copy(update={"include_png": False}))
                self._painted += 1
            self._done = observation.done
            self._reward = observation.reward if self._done and not self._lost else None
        except Exception:  # noqa: BLE001 - ours: the episode is None
            self._episode_begun, self._lost, self._reward = False, True, None

    def _remaining(self) -> str:
        left = self._revisions + 1 - self._painted
        if left <= 0:
            return " That was your last painting: no revisions remain."
        return f" Revisions left: {left}. Paint again to revise, or stop: your last painting is the one judged."


def _picture(png_base64: str, side: int):
    """The painting as TRL passes a tool's image to a vision-language policy: a PIL image, `side` px a side."""
    from PIL import Image  # with the policy's packages (TRL's image path needs Pillow), not the client's

    with Image.open(io.BytesIO(base64.b64decode(png_base64))) as image:
        return image.convert("RGB").resize((side, side), Image.Resampling.LANCZOS)


def _feedback(observation: WatercolourObservation, reward: float | None) -> str:
    if reward is None:
        return f"The painting could not be judged ({observation.unavailable_reason}); it is not held against you."
    if observation.status == "failed":
        broken = "; ".join(violation.message for violation in observation.render.violations) if observation.render else ""
        return f"The sketch failed the gate: {broken or 'it did not render'}."
    return "The sketch passed the gate."

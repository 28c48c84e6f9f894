"""OpenEnv action, observation and state of the watercolour environment."""

from __future__ import annotations

from typing import Annotated, Literal

from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field

from watercolour_shared.render_wire import MAX_REPLY_CHARS, RenderResult, RewardBreakdown
from watercolour_shared.reward import MixWeights
from watercolour_shared.sketch_text import WellFormed


class WatercolourAction(Action):
    reply: Annotated[str, WellFormed] = Field(
        max_length=MAX_REPLY_CHARS, description="the policy's raw reply (plain code or a ```js fence)"
    )
    seed: int | None = Field(None, ge=0, le=2**31 - 1, description="render seed; defaults to the episode's")
    include_png: bool = False


class WatercolourObservation(Observation):
    subject: str = ""
    prompt: str = Field("", description="the user message for this episode")
    status: Literal["ready", "passed", "failed", "unavailable"] = "ready"
    render: RenderResult | None = Field(None, description="gate and render result; the PNG only when asked for")
    breakdown: RewardBreakdown | None = None
    unavailable_reason: str | None = None
    # Only in an episode with revisions (docs/revisions.md); None in one without, so its wire is what it was.
    revisions_left: int | None = Field(None, description="paintings still allowed after this one")
    critique: str | None = Field(None, description="what this painting and the gate show, never a score")
    critique_source: Literal["rules", "vlm"] | None = Field(None, description="who wrote the critique")
    critique_version: str | None = Field(None, description="the rules' digest, or the critic's prompt digest and model")
    # With WATERCOLOUR_CRITIC=vlm (docs/revisions.md, "The VLM critic"): the measured qualities stay beside the VLM's words.
    measured_critique: str | None = Field(None, description="the rules' critique of this painting, when the VLM critic is on")
    critique_fallback_reason: str | None = Field(None, description="why the rules' critique stands in for the VLM critic's")
    first_reward: float | None = Field(None, description="the first painting's reward, on the last turn when a bonus applied")


class WatercolourState(State):
    subject: str = ""
    seed: int = 0
    weights: MixWeights | None = None
    revisions: int = Field(0, description="paintings after the first that the episode allows")
    revision_bonus: float = 0.0

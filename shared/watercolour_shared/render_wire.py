"""What crosses HTTP to and from the render environment."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
    model_validator,
)
from pydantic_core import PydanticCustomError

from watercolour_shared.retired_names import EPISODE_OPTIONS, refusal
from watercolour_shared.reward import MixWeights
from watercolour_shared.sketch_text import (
    LINE_CHARS,
    MAX_VIOLATIONS,
    MESSAGE_CHARS,
    SketchLine,
    SketchLines,
    SketchMessage,
    WellFormed,
    safe_text,
)
from watercolour_shared.subjects import DEFAULT_SUBJECT, MAX_SUBJECT_CHARS
from watercolour_shared.violations import ViolationCode

# A model reply longer than this is refused by request validation (422); replies
# between the gate's own limit and this one fail the gate as `oversized`.
MAX_REPLY_CHARS = 2_000_000

# Seeds cross to JavaScript, whose seeded generators take 32 bits; larger ones would paint alike.
MAX_SEED = 2**31 - 1
# The most replies one /evaluate call scores: a GRPO group. The trainer refuses a larger num_generations when its
# config is parsed (trainer/watercolour_trainer/config.py), not at the first step's 422.
MAX_GROUP = 64

RenderStatus = Literal["passed", "failed", "unavailable"]
Reply = Annotated[str, WellFormed, Field(max_length=MAX_REPLY_CHARS, description="raw model reply or plain code")]


class Violation(BaseModel):
    code: ViolationCode
    message: SketchMessage
    line: int | None = None


def _bounded_violations(violations: list[Violation]) -> list[Violation]:
    """At most MAX_VIOLATIONS; when some are cut, the last one says how many (with the first cut one's code)."""
    if len(violations) <= MAX_VIOLATIONS:
        return violations
    cut = violations[MAX_VIOLATIONS - 1 :]
    return [*violations[: MAX_VIOLATIONS - 1], Violation(code=cut[0].code, message=f"... and {len(cut)} more violations")]


class Timings(BaseModel):
    """Milliseconds. `overhead_ms` is everything that is ours, not the sketch's own work."""

    gate_ms: float = 0.0
    queue_ms: float = 0.0
    load_ms: float = 0.0
    draw_ms: float = 0.0
    readback_ms: float = 0.0
    total_ms: float = 0.0

    @property
    def overhead_ms(self) -> float:
        return max(0.0, self.total_ms - self.draw_ms - self.readback_ms)


class RenderRequest(BaseModel):
    reply: Reply
    seed: int = Field(0, ge=0, le=MAX_SEED)
    include_png: bool = True


class RenderResult(BaseModel):
    """One sketch through the gate and the renderer.

    `status` is `unavailable` when our infrastructure failed (browser crash, pool
    saturated): that is never the model's fault and must never be scored.
    """

    status: RenderStatus
    violations: Annotated[list[Violation], AfterValidator(_bounded_violations)] = []
    errors: SketchLines = []
    warnings: SketchLines = Field([], description="notes that do not fail the gate, e.g. a sketch near its deadline")
    paint_fraction: float | None = None
    brush_calls: dict[str, int] = {}
    timings: Timings = Timings()
    png_base64: str | None = None
    code: str | None = None
    cached: bool = False
    unavailable_reason: SketchLine | None = None

    @property
    def passed(self) -> bool:
        return self.status == "passed"


# Revisions (docs/revisions.md): how many times an episode's painter may paint again after a critique, and the
# bound on the improvement bonus alpha in alpha x (r_last - r_first) (SCoRe's shaping; 0 pays the last painting alone).
MAX_REVISIONS = 8
MAX_REVISION_BONUS = 10.0
# Sent only when set: options at their defaults cross the wire as they did before revisions existed.
_REVISION_SETTINGS = {"revisions": 0, "revision_bonus": 0.0}


class EpisodeOptions(BaseModel):
    """Per-episode settings a trainer passes through `reset` (or with a batch). A key that is none of them is
    refused: a misspelt setting would otherwise paint, and reward, an episode nobody asked for."""

    model_config = ConfigDict(extra="forbid")

    subject: Annotated[str, WellFormed, Field(min_length=1, max_length=MAX_SUBJECT_CHARS)] = DEFAULT_SUBJECT
    weights: MixWeights | None = Field(None, description="the episode's reward weights; the environment's default if unset")
    references: int | None = Field(
        None, ge=1, le=16, strict=True, description="judge references per rollout; the env's default if unset"
    )
    revisions: int = Field(
        0, ge=0, le=MAX_REVISIONS, strict=True, description="paintings after the first, each after a critique; 0: one painting"
    )
    revision_bonus: float = Field(
        0.0,
        ge=0.0,
        le=MAX_REVISION_BONUS,
        allow_inf_nan=False,
        strict=True,  # as the weights: true or "0.5" is a typo, not a bonus
        description="alpha: the episode's reward is r_last + alpha x (r_last - r_first); 0: the last painting's",
    )

    @model_validator(mode="before")
    @classmethod
    def _no_retired_option(cls, data):
        for old, new in EPISODE_OPTIONS.items():  # extra="forbid" refuses it too, but without naming what replaced it
            if isinstance(data, dict) and old in data:
                raise PydanticCustomError("episode_options", refusal(old, new))
        return data

    @model_serializer(mode="wrap")
    def _revisions_when_set(self, handler: SerializerFunctionWrapHandler) -> dict:
        """A revision setting at its default is left out, so an episode without revisions is the wire it was (a
        server from before revisions, whose options forbid unknown keys, still takes it)."""
        dumped = handler(self)
        for name, default in _REVISION_SETTINGS.items():
            if dumped.get(name) == default:
                dumped.pop(name)
        return dumped

    def weights_or(self, default: MixWeights) -> MixWeights:
        """The weights this episode is scored with: its own, else the environment's default."""
        return self.weights if self.weights is not None else default


# What `reset` takes as episode settings: the options' fields, and the retired ones, refused by name rather than ignored.
EPISODE_SETTINGS = frozenset({*EpisodeOptions.model_fields, *EPISODE_OPTIONS})


def read_episode_options(data: object) -> EpisodeOptions:
    """The options a client sent, or their refusal as an error that quotes nothing back: what was sent may be
    megabytes, or hold text no JSON encoder writes (a lone surrogate), and OpenEnv's WebSocket sends the error's
    lines as they are. Each line keeps its place and its reason, made safe and cut to a line."""
    try:
        return EpisodeOptions.model_validate(data)
    except ValidationError as error:
        lines = [
            {
                "type": PydanticCustomError("episode_options", safe_text(item["msg"], LINE_CHARS)),
                "loc": tuple(part if isinstance(part, int) else safe_text(str(part), MESSAGE_CHARS) for part in item["loc"]),
                "input": None,
            }
            for item in error.errors(include_url=False)[:MAX_REFUSAL_LINES]
        ]
        raise ValidationError.from_exception_data(EpisodeOptions.__name__, lines) from None


MAX_REFUSAL_LINES = 20


def episode_refused(setting: str, reason: str, given: object) -> ValidationError:
    """An episode setting refused by a check the model cannot make alone (the pool a server loaded): the same error
    as the model's own, so every route answers it as it answers a malformed option."""
    error = PydanticCustomError("episode_options", reason)  # no context: the reason is the whole message
    return ValidationError.from_exception_data(EpisodeOptions.__name__, [{"type": error, "loc": (setting,), "input": given}])


class RewardBreakdown(BaseModel):
    total: float | None
    gate: float
    length: float
    judge: float | None = None
    hps: float | None = None
    weights: MixWeights
    unavailable_reason: str | None = None
    details: dict[str, dict] = Field({}, description="per term: references, verdicts and reasons; mu and sigma")


class EvaluateRequest(BaseModel):
    """A whole GRPO group: every reply is gated, rendered and rewarded together."""

    replies: list[Reply] = Field(min_length=1, max_length=MAX_GROUP)
    seed: int = Field(0, ge=0, le=MAX_SEED)
    options: EpisodeOptions = EpisodeOptions()
    include_png: bool = False


class Evaluation(BaseModel):
    render: RenderResult
    reward: RewardBreakdown


class EvaluateResponse(BaseModel):
    results: list[Evaluation]

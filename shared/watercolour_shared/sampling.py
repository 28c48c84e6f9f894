"""How a policy samples its replies: temperature, top-p, top-k and the completion length, in one home.

The trainer records the sampling a run trained with in its run.json (`RunPlan.sampling`); whatever paints with
that run's policy afterwards (`watercolour eval`, `watercolour paint`, an endpoint serving it, the demo's closing
eval) samples as the run sampled, unless a flag says otherwise: a flag left out is None, then the run's value,
then the default here. The defaults are the recipes' (trainer/recipes/base/, held to them by
tests/test_sampling_contract.py). A top-k of 0 means no top-k, as in TRL and transformers.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

FIELDS = ("temperature", "top_p", "top_k", "max_new_tokens")


class Sampling(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    temperature: float = Field(1.0, ge=0)
    top_p: float = Field(0.95, gt=0, le=1)
    top_k: int = Field(20, ge=0)  # 0: no top-k
    max_new_tokens: int = Field(8192, ge=1)  # TRL's max_completion_length

    @classmethod
    def of_config(cls, config: Any) -> Sampling:
        """What a GRPO config (TRL's field names, an object or its dict) samples with."""
        get = config.get if isinstance(config, dict) else lambda name, default=None: getattr(config, name, default)
        found = {
            "temperature": get("temperature"),
            "top_p": get("top_p"),
            "top_k": get("top_k"),
            "max_new_tokens": get("max_completion_length"),
        }
        return cls(**{name: value for name, value in found.items() if value is not None})

    def overridden(self, **flags: float | int | None) -> Sampling:
        """This sampling with each flag that was given (not None) in its place."""
        given = {name: value for name, value in flags.items() if value is not None}
        return Sampling(**(self.model_dump() | given)) if given else self

    def generate_kwargs(self) -> dict:
        """transformers' `generate` arguments."""
        return {"do_sample": True, **self.model_dump()}

    def chat_fields(self) -> dict:
        """The fields of an OpenAI-compatible chat-completions request (vLLM, TGI and the HF router take top_k)."""
        fields = {"temperature": self.temperature, "top_p": self.top_p, "max_tokens": self.max_new_tokens}
        return fields | ({"top_k": self.top_k} if self.top_k else {})


def add_sampling_arguments(parser, whose: str = "the run's") -> None:
    """--temperature, --top-p, --top-k and --max-new-tokens, each None unless given: `whose` sampling then."""
    default = Sampling()
    for flag, kind, name in (
        ("--temperature", float, "temperature"),
        ("--top-p", float, "top_p"),
        ("--top-k", int, "top_k"),
        ("--max-new-tokens", int, "max_new_tokens"),
    ):
        parser.add_argument(flag, type=kind, help=f"default: {whose}, else {getattr(default, name)}")


def flags_of(args) -> dict:
    """The sampling flags of parsed arguments, None where not given (for `Sampling.overridden`)."""
    return {name: getattr(args, name, None) for name in FIELDS}

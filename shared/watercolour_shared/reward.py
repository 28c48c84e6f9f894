"""The reward mix: its terms' names, weights, the recipe's presets, and the rule that a missing
term makes the reward unavailable instead of silently vanishing.

reward = 0 when the gate fails, else
         w_gate + w_length * length + w_hps * hps + w_judge * judge
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Literal, get_args

from pydantic import BaseModel, ValidationError, ValidationInfo, field_validator, model_validator
from pydantic_core import PydanticCustomError

# The one list of the terms' names: every weights, scores and breakdown model names its fields after them.
ModelTerm = Literal["judge", "hps"]  # scored by a model behind a service; gate and length are computed by rule
Term = Literal["gate", "length", ModelTerm]
MIX_TERMS: tuple[Term, ...] = get_args(Term)
MODEL_TERMS: tuple[ModelTerm, ...] = get_args(ModelTerm)


def by_term(values: BaseModel) -> dict[Term, float | None]:
    """The value of each term a model holds (weights, scores or a reward breakdown), in the mix's order."""
    fields = dict(values)
    return {term: fields[term] for term in MIX_TERMS if term in fields}


# Weights are relative (the presets sum to 1, and GRPO normalises each group's rewards), so no run needs a weight
# near this; it keeps every total at most 4 x 100, a finite number in any float a trainer or a log may hold it in.
MAX_WEIGHT = 100.0


class MixWeights(BaseModel):
    """One weight per term, every term named, each finite and in 0..MAX_WEIGHT: the one check that `--weights`
    (parse_weights), the wire (an episode's weights) and code share. Its errors carry no exception objects, so
    every transport (FastAPI, OpenEnv's WebSocket) can send them back as they are."""

    gate: float
    length: float
    judge: float
    hps: float

    @model_validator(mode="before")
    @classmethod
    def _every_term_named(cls, data):
        if not isinstance(data, dict):
            return data  # an instance, or pydantic's own error for what is no object
        # Escaped: a name with a lone surrogate would make the reason itself unwritable.
        unknown = [str(name).encode("utf-8", "backslashreplace").decode() for name in data if name not in MIX_TERMS]
        if unknown:
            raise _refused(f"weights name only the terms {', '.join(MIX_TERMS)}; unknown: {', '.join(unknown)}")
        missing = [term for term in MIX_TERMS if term not in data]
        if missing:
            raise _refused(f"weights name every term; missing: {', '.join(missing)}")
        return data

    @field_validator("*", mode="before")
    @classmethod
    def _a_number(cls, value: object, info: ValidationInfo) -> object:
        # JSON's true and "0.5" are no weights: a typed client sends numbers, and a coerced typo would train. Any
        # real number is one (numpy's too, for a script that builds its weights in arrays).
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise _refused(f"the weight of {info.field_name} is not a number: a {type(value).__name__}")
        return float(value)

    @field_validator("*")
    @classmethod
    def _finite_and_bounded(cls, value: float, info: ValidationInfo) -> float:
        if not math.isfinite(value):
            raise _refused(f"the weight of {info.field_name} is not a finite number: {value}")
        if value < 0:
            raise _refused(f"the weight of {info.field_name} is negative: {value:g}")
        if value > MAX_WEIGHT:
            raise _refused(f"the weight of {info.field_name} is over {MAX_WEIGHT:g}: {value:g}")
        return value + 0.0  # -0.0 is 0

    @model_validator(mode="after")
    def _rewards_something(self) -> MixWeights:
        if not any(by_term(self).values()):
            raise _refused("weights reward nothing: every weight is 0")
        return self

    def weight(self, term: Term) -> float:
        return by_term(self)[term]

    def active(self, term: Term) -> bool:
        """A term whose weight is 0 is not computed at all."""
        return self.weight(term) > 0


def parse_weights(text: str) -> MixWeights:
    """`judge=0.6,hps=0.3,gate=0.05,length=0.05`: every term named once, in any order."""
    parts = [part.strip() for part in text.split(",")]
    if not any("=" in part for part in parts):  # bare numbers by position: a term added to the mix would shift the rest
        raise ValueError(f"weights name every term: {format_weights(PRESETS[DEFAULT_MIX])}")
    named: dict[str, float] = {}
    for part in parts:
        term, equals, value = part.partition("=")
        term = term.strip()
        if not equals or term not in MIX_TERMS:
            raise ValueError(f"{part!r} is not TERM=WEIGHT with a term of {', '.join(MIX_TERMS)}")
        if term in named:
            raise ValueError(f"weights name {term} twice")
        named[term] = _number(term, value)
    return _checked(named)


def format_weights(weights: MixWeights) -> str:
    """The text parse_weights reads back: `gate=0.05,length=0.05,judge=0.6,hps=0.3`."""
    return ",".join(f"{term}={weight:g}" for term, weight in by_term(weights).items())


def _number(term: str, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"the weight of {term} is not a number: {text.strip()!r}") from None


def _checked(named: dict[str, float]) -> MixWeights:
    """MixWeights' own check, as the one-line ValueError a command line shows."""
    try:
        return MixWeights(**named)
    except ValidationError as error:
        raise ValueError("; ".join(item["msg"] for item in error.errors())) from None


def _refused(reason: str) -> PydanticCustomError:
    # No context: the reason is the whole message (braces in it are not a template's), and nothing unserialisable rides along.
    return PydanticCustomError("mix_weights", reason)


# The preset a run, the environment and a Space use when nobody names one.
DEFAULT_MIX = "judge-led"

PRESETS: dict[str, MixWeights] = {
    DEFAULT_MIX: MixWeights(gate=0.05, length=0.05, judge=0.60, hps=0.30),
    "hps-led": MixWeights(gate=0.05, length=0.05, judge=0.30, hps=0.60),
    "hps-only": MixWeights(gate=0.05, length=0.05, judge=0.0, hps=0.90),
}


def preset(name: str) -> MixWeights:
    try:
        return PRESETS[name].model_copy()
    except KeyError:
        raise ValueError(f"unknown mix preset {name!r}; choose one of {sorted(PRESETS)}") from None


class TermScores(BaseModel):
    """Scores in 0..1 for the model-judged terms; None means not computed or unavailable."""

    judge: float | None = None
    hps: float | None = None

    def score(self, term: ModelTerm) -> float | None:
        return by_term(self)[term]


class MixedReward(BaseModel):
    total: float | None
    unavailable_reason: str | None = None


def mix_reward(gate_passed: bool, length: float, terms: TermScores, weights: MixWeights) -> MixedReward:
    if not gate_passed:
        return MixedReward(total=0.0)
    total = weights.gate + weights.length * length
    missing = []
    for term in MODEL_TERMS:
        if not weights.active(term):
            continue
        score = terms.score(term)
        if score is None:
            missing.append(f"{term} (weight {weights.weight(term):.2f})")
            continue
        total += weights.weight(term) * score
    if missing:
        return MixedReward(total=None, unavailable_reason="no score for " + ", ".join(missing))
    return MixedReward(total=total)


def term_values(gate_passed: bool, length: float, terms: TermScores, weights: MixWeights) -> dict[Term, float] | None:
    """Each term's value before its weight, such that their weighted sum is `mix_reward`'s total: what a trainer
    that normalises each term within its group before weighting (GDPO; TRL's `normalize_then_sum`) is given. Every
    term is 0 when the gate failed, as the reward is; None when the reward is unavailable (the rollout is dropped
    whole, never scored on the terms that answered). A term without weight counts 0."""
    if mix_reward(gate_passed, length, terms, weights).total is None:
        return None
    if not gate_passed:
        return dict.fromkeys(MIX_TERMS, 0.0)
    scores = {term: terms.score(term) if weights.active(term) else 0.0 for term in MODEL_TERMS}
    return {"gate": 1.0, "length": length, **scores}


def revision_reward(turns: Sequence[float | None], bonus: float = 0.0) -> float | None:
    """An episode's reward from its paintings' rewards, in the order painted (docs/revisions.md).

    The last painting's reward, plus the improvement bonus `bonus x (last - first)` (SCoRe's alpha; 0 pays the last
    painting alone, and one painting is its own reward, exactly). A turn our infrastructure could not paint or score
    (None) makes the episode's reward None, never 0: the trainer drops the episode. A painting that failed the gate is
    a real 0 and counts as one."""
    if not turns:
        raise ValueError("an episode's reward needs at least one painting")
    if any(total is None for total in turns):
        return None
    first, last = turns[0], turns[-1]
    if bonus == 0 or len(turns) == 1:
        return last
    return last + bonus * (last - first)

"""The reward mix: weights, the recipe's presets, and the rule that a missing
term makes the reward unavailable instead of silently vanishing.

reward = 0 when the gate fails, else
         w_gate + w_length * length + w_hps * hps + w_judge * judge
"""

from __future__ import annotations

from pydantic import BaseModel, Field

MIX_TERMS = ("gate", "length", "judge", "hps")


class MixWeights(BaseModel):
    gate: float = Field(0.05, ge=0)
    length: float = Field(0.05, ge=0)
    judge: float = Field(0.60, ge=0)
    hps: float = Field(0.30, ge=0)

    def active(self, term: str) -> bool:
        """A term whose weight is 0 is not computed at all."""
        return getattr(self, term) > 0


PRESETS: dict[str, MixWeights] = {
    "judge-led": MixWeights(gate=0.05, length=0.05, judge=0.60, hps=0.30),
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


class MixedReward(BaseModel):
    total: float | None
    unavailable_reason: str | None = None


def mix_reward(gate_passed: bool, length: float, terms: TermScores, weights: MixWeights) -> MixedReward:
    if not gate_passed:
        return MixedReward(total=0.0)
    total = weights.gate + weights.length * length
    missing = []
    for term in ("judge", "hps"):
        if not weights.active(term):
            continue
        score = getattr(terms, term)
        if score is None:
            missing.append(f"{term} (weight {getattr(weights, term):.2f})")
            continue
        total += getattr(weights, term) * score
    if missing:
        return MixedReward(total=None, unavailable_reason="no score for " + ", ".join(missing))
    return MixedReward(total=total)


def resolve_weights(default: MixWeights, mix: str | None = None, weights: MixWeights | None = None) -> MixWeights:
    """Per-episode weights: explicit weights win over a preset name, which wins over the service default."""
    if weights is not None:
        return weights
    if mix is not None:
        return preset(mix)
    return default

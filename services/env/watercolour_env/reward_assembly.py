"""Reward assembly in the environment: gate and length here, model-judged terms
through scorers plugged in by name (the judge and HPSv3 arrive as TermScorers).

A term with weight 0 is never computed. A term with weight above 0 whose scorer
is missing or unavailable makes the whole reward unavailable (None), with the
reason, so a heavy term can never vanish silently.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Protocol

from watercolour_shared.length import length_score
from watercolour_shared.render_wire import EpisodeOptions, RenderResult, RewardBreakdown
from watercolour_shared.reward import MODEL_TERMS, MixWeights, ModelTerm, TermScores, by_term, mix_reward

log = logging.getLogger(__name__)


@dataclass
class TermScore:
    score: float | None  # 0..1, or None when the backend could not answer
    details: dict = field(default_factory=dict)


class TermScorer(Protocol):
    async def score(self, result: RenderResult, episode: EpisodeOptions, seed: int) -> TermScore:
        """Score one passed painting; `seed` is the step's, so a group shares its references."""

    def describe(self) -> dict:
        """What a user needs to know about the backend: which judge and pool, which prompt."""

    async def reachable(self) -> bool:
        """Whether the backend answers now (for /ready and start-up checks)."""

    async def close(self) -> None:
        """Release connections."""


class RewardAssembler:
    def __init__(self, scorers: dict[ModelTerm, TermScorer] | None = None):
        self.scorers = scorers or {}

    def configured_terms(self) -> dict[ModelTerm, bool]:
        return {term: term in self.scorers for term in MODEL_TERMS}

    def described_terms(self) -> dict[ModelTerm, dict]:
        return {term: scorer.describe() for term, scorer in self.scorers.items()}

    async def reachable_terms(self) -> dict[ModelTerm, bool]:
        """Probed together, each with a short timeout, so /ready answers within a few seconds."""
        probed = list(self.scorers)
        answers = await asyncio.gather(*(self.scorers[term].reachable() for term in probed))
        reachable = dict(zip(probed, answers, strict=True))
        return {term: reachable.get(term, False) for term in MODEL_TERMS}

    async def _timed(self, term: ModelTerm, result: RenderResult, episode: EpisodeOptions, seed: int) -> TermScore:
        """Any failure of a term's backend makes that term unavailable, never 0, and never fails the group."""
        started = time.perf_counter()
        try:
            scored = await self.scorers[term].score(result, episode, seed)
        except Exception as error:  # noqa: BLE001
            log.warning("the %s term failed: %s", term, error)
            scored = TermScore(None, {"error": f"{type(error).__name__}: {error}"})
        scored.details["ms"] = round((time.perf_counter() - started) * 1000, 1)
        return scored

    async def close(self) -> None:
        for scorer in self.scorers.values():
            await scorer.close()

    async def assess(self, result: RenderResult, weights: MixWeights, episode: EpisodeOptions, seed: int) -> RewardBreakdown:
        length = length_score(result.code or "")
        if result.status == "unavailable":
            return RewardBreakdown(
                total=None, gate=0.0, length=length, weights=weights, unavailable_reason=result.unavailable_reason
            )
        terms, details = TermScores(), {}
        if result.passed:
            active = [term for term in MODEL_TERMS if weights.active(term) and term in self.scorers]
            results = await asyncio.gather(*(self._timed(term, result, episode, seed) for term in active))
            scored = dict(zip(active, results, strict=True))
            terms = TermScores(**{term: value.score for term, value in scored.items()})
            details = {term: value.details for term, value in scored.items()}
        mixed = mix_reward(result.passed, length, terms, weights)
        return RewardBreakdown(
            total=mixed.total,
            gate=1.0 if result.passed else 0.0,
            length=length,
            **by_term(terms),
            weights=weights,
            unavailable_reason=mixed.unavailable_reason,
            details=details,
        )

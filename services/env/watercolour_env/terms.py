"""Model-judged reward terms the environment plugs into its RewardAssembler."""

from __future__ import annotations

import base64

from watercolour_env.reward_assembly import TermScore
from watercolour_shared.judge.pairwise import PairwiseJudge
from watercolour_shared.reference_pool import ReferencePool
from watercolour_shared.render_wire import EpisodeOptions, RenderResult
from watercolour_shared.scorer_client import ScorerClient


class HpsTerm:
    """HPSv3 through the scoring service. The scorer's micro-batcher merges the
    concurrent calls of one group into few forward passes. When the scorer cannot
    answer this raises, and the assembler records the term as unavailable."""

    def __init__(self, client: ScorerClient, prompt: str):
        self.client = client
        self.prompt = prompt

    async def score(self, result: RenderResult, episode: EpisodeOptions, seed: int) -> TermScore:
        response = await self.client.score([base64.b64decode(result.png_base64 or "")], self.prompt)
        [image] = response.scores
        details = {"mu": image.mu, "sigma": image.sigma, "backend": response.backend, "model_version": response.model_version}
        return TermScore(image.score, details)

    def describe(self) -> dict:
        return {"prompt": self.prompt}

    async def reachable(self) -> bool:
        return await self.client.probe("/ready")

    async def close(self) -> None:
        await self.client.close()


class JudgeTerm:
    """The pairwise judge against references drawn from the pool with the step's seed,
    so every rollout of one group faces the same references."""

    def __init__(self, pairwise: PairwiseJudge, references: ReferencePool, tier_mix: dict[str, float], count: int):
        self.pairwise = pairwise
        self.references = references
        self.tier_mix = tier_mix
        self.count = count

    async def score(self, result: RenderResult, episode: EpisodeOptions, seed: int) -> TermScore:
        drawn = self.references.sample(self.tier_mix, episode.references or self.count, seed)
        outcome = await self.pairwise.score(base64.b64decode(result.png_base64 or ""), drawn)
        details = outcome.model_dump(mode="json")
        details["judge"] = self.pairwise.judge.name
        details["pool"] = self.references.origin
        agreed = [c.orders_agree for c in outcome.comparisons if c.orders_agree is not None]
        details["order_agreement"] = sum(agreed) / len(agreed) if agreed else None
        return TermScore(outcome.score, details)

    def describe(self) -> dict:
        described = {"judge": self.pairwise.judge.name, "pool": self.references.origin, "tiers": self.references.tiers()}
        described["tier_mix"] = self.tier_mix  # with `tiers`, a client can tell whether its reference count fits the pool
        return {**described, "references": self.count}

    async def reachable(self) -> bool:
        reachable = getattr(self.pairwise.judge, "reachable", None)
        return await reachable() if reachable else True

    async def close(self) -> None:
        close = getattr(self.pairwise.judge, "close", None)
        if close:
            await close()

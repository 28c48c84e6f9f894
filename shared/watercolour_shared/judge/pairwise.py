"""One candidate against its references, each judged in both orders.

Per reference: won both orders = 1, split = 0.5, lost both = 0; a reference with
a failed order is dropped. The judge score is the mean over resolved references,
and None (unavailable, never 0) when none resolved. Each reference logs whether
both orders chose the same painting: a split is the judge's position bias.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from typing import Protocol

from pydantic import BaseModel

from watercolour_shared.cache_keys import verdict_key
from watercolour_shared.judge.verdict import Verdict
from watercolour_shared.redis_cache import RedisCache
from watercolour_shared.reference_pool import Reference

log = logging.getLogger(__name__)


class Judge(Protocol):
    name: str
    prompt: str

    async def compare(self, painting_a: bytes, painting_b: bytes) -> Verdict: ...


class Comparison(BaseModel):
    reference_id: str
    tier: str
    candidate_as_a: Verdict | None
    candidate_as_b: Verdict | None
    score: float | None
    orders_agree: bool | None


class JudgeOutcome(BaseModel):
    score: float | None
    comparisons: list[Comparison]
    unavailable_reason: str | None = None


class PairwiseJudge:
    def __init__(self, judge: Judge, cache: RedisCache | None = None):
        self.judge = judge
        self.cache = cache
        self._prompt_digest = hashlib.sha256(judge.prompt.encode()).hexdigest()[:16]

    async def score(self, candidate: bytes, references: list[Reference]) -> JudgeOutcome:
        digest = hashlib.sha256(candidate).hexdigest()
        comparisons = await asyncio.gather(*(self._compare(candidate, digest, ref) for ref in references))
        resolved = [c.score for c in comparisons if c.score is not None]
        if not resolved:
            return JudgeOutcome(score=None, comparisons=comparisons, unavailable_reason="no reference was judged in both orders")
        return JudgeOutcome(score=sum(resolved) / len(resolved), comparisons=comparisons)

    async def _compare(self, candidate: bytes, digest: str, reference: Reference) -> Comparison:
        as_a, as_b = await asyncio.gather(
            self._verdict(candidate, reference.png, (digest, reference.id, "candidate-first")),
            self._verdict(reference.png, candidate, (digest, reference.id, "candidate-second")),
        )
        if as_a is None or as_b is None:
            return Comparison(
                reference_id=reference.id,
                tier=reference.tier,
                candidate_as_a=as_a,
                candidate_as_b=as_b,
                score=None,
                orders_agree=None,
            )
        wins = (as_a.winner == "A") + (as_b.winner == "B")
        agree = (as_a.winner == "A") == (as_b.winner == "B")
        log.info("judge %s vs %s: candidate won %d of 2, orders agree: %s", digest[:12], reference.id, wins, agree)
        return Comparison(
            reference_id=reference.id,
            tier=reference.tier,
            candidate_as_a=as_a,
            candidate_as_b=as_b,
            score=wins / 2,
            orders_agree=agree,
        )

    async def _verdict(self, painting_a: bytes, painting_b: bytes, key_parts: tuple[str, str, str]) -> Verdict | None:
        key = verdict_key(*key_parts, self.judge.name, self._prompt_digest)
        return await cached_verdict(self.judge, self.cache, key, painting_a, painting_b)


async def cached_verdict(
    judge: Judge, cache: RedisCache | None, key: str, painting_a: bytes, painting_b: bytes
) -> Verdict | None:
    """The judge's verdict on A against B, from the cache when it holds one, kept there when it is new; None when the
    call fails: a failed call leaves its comparison out, never scores it as a loss."""
    raw = await cache.get(key) if cache else None
    if raw is not None:
        return Verdict.model_validate_json(raw)
    try:
        verdict = await judge.compare(painting_a, painting_b)
    except Exception as error:  # noqa: BLE001 - any failure of the judge is infrastructure's, never the painting's
        log.warning("judge call failed: %s", error)
        return None
    if cache:
        await cache.put(key, verdict.model_dump_json())
    return verdict

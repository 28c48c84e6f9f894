"""B's painting against A's, of one subject, judged in both orders; `pairings` says which of a subject's paintings meet.

B wins when the judge prefers it in both orders, loses when it prefers A in both; orders that disagree
are a tie (the judge's position bias, not a preference). A painting that failed the gate loses to one
that passed, and two failed paintings tie. When either painting or either verdict is missing because
something gave no answer, the comparison is left out and counted, never scored as a loss.
Verdicts are kept in Redis, so a rerun asks the judge only what it was not asked before.
"""

from __future__ import annotations

import hashlib
import itertools
from pathlib import Path

from watercolour_shared.cache_keys import verdict_key
from watercolour_shared.judge.pairwise import Judge, cached_verdict
from watercolour_shared.judge.verdict import Verdict
from watercolour_shared.redis_cache import RedisCache
from watercolour_shared.run_dir.evaluation import Match, Painting, Pairs

SCORES = {"win": 1.0, "tie": 0.5, "loss": 0.0}


def pairings(a: list[Painting], b: list[Painting], pairs: Pairs) -> list[tuple[Painting, Painting]]:
    """A subject's comparisons: A's sample k against B's sample k (matched: S of them), or every A painting against
    every B painting (all: S x S from the same 2S paintings). Both estimate the chance that a B painting beats an A
    painting of the subject; all pairs average over S times as many pairings, so with less variance, for S times
    the judge calls."""
    return list(itertools.product(a, b)) if pairs == "all" else list(zip(a, b, strict=True))


class HeadToHead:
    def __init__(self, judge: Judge, cache: RedisCache | None, folder: Path):
        self.judge = judge
        self.cache = cache
        self.folder = folder
        self._prompt = hashlib.sha256(judge.prompt.encode()).hexdigest()[:16]

    async def match(self, a: Painting, b: Painting) -> Match:
        pair = {"sample": a.sample, "b_sample": b.sample}
        if "unavailable" in (a.status, b.status):
            return Match(**pair, outcome="left-out", why=a.failure or b.failure or "no answer")
        if a.status == "failed" or b.status == "failed":
            if a.status == b.status:
                return Match(**pair, outcome="tie", why="both failed the gate")
            return Match(**pair, outcome="win" if a.status == "failed" else "loss", why="only one passed the gate")
        png_a, png_b = (self.folder / a.png).read_bytes(), (self.folder / b.png).read_bytes()
        a_first = await self._verdict(png_a, png_b)
        b_first = await self._verdict(png_b, png_a)
        if a_first is None or b_first is None:
            return Match(**pair, outcome="left-out", why="a judge call failed", a_first=a_first, b_first=b_first)
        b_votes = (a_first.winner == "B") + (b_first.winner == "A")
        outcome = {2: "win", 0: "loss"}.get(b_votes, "tie")
        why = {"win": "B preferred in both orders", "loss": "A preferred in both orders", "tie": "the orders disagree"}[outcome]
        return Match(**pair, outcome=outcome, why=why, a_first=a_first, b_first=b_first)

    async def _verdict(self, first: bytes, second: bytes) -> Verdict | None:
        digests = [hashlib.sha256(png).hexdigest() for png in (first, second)]
        key = verdict_key(digests[0], digests[1], "eval-pair", self.judge.name, self._prompt)
        return await cached_verdict(self.judge, self.cache, key, first, second)

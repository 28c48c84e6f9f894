"""How often the judge prefers the current policy's paintings to each reference: a reference the
policy never beats (or always beats) gives the judge term no signal, so it is too hard (too easy)."""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass
from pathlib import Path

from watercolour_shared.judge.pairwise import Judge, PairwiseJudge
from watercolour_shared.reference_pool import Reference, ReferencePool
from watercolour_shared.run_dir import RunReader


@dataclass(frozen=True)
class Calibration:
    reference: str
    tier: str
    win_rate: float | None
    judged: int
    orders_agree: float | None
    verdict: str

    def as_json(self) -> dict:
        return asdict(self)


async def calibrate(
    pool: ReferencePool, paintings: list[bytes], judge: Judge, too_hard: float, too_easy: float
) -> list[Calibration]:
    """One row per reference, hardest first. Each painting meets each reference in both orders, as in training."""
    pairwise = PairwiseJudge(judge)
    references = [Reference(id=e.id, tier=e.tier, png=e.image.read_bytes()) for e in pool.entries]
    rows = await asyncio.gather(*(_against(pairwise, paintings, ref, too_hard, too_easy) for ref in references))
    return sorted(rows, key=lambda row: (row.win_rate is None, row.win_rate or 0.0, row.reference))


async def _against(
    pairwise: PairwiseJudge, paintings: list[bytes], reference: Reference, too_hard: float, too_easy: float
) -> Calibration:
    outcomes = await asyncio.gather(*(pairwise.score(png, [reference]) for png in paintings))
    comparisons = [c for outcome in outcomes for c in outcome.comparisons if c.score is not None]
    win_rate = sum(c.score for c in comparisons) / len(comparisons) if comparisons else None
    agree = sum(bool(c.orders_agree) for c in comparisons) / len(comparisons) if comparisons else None
    verdict = (
        "unjudged"
        if win_rate is None
        else "too hard"
        if win_rate <= too_hard
        else "too easy"
        if win_rate >= too_easy
        else "useful"
    )
    return Calibration(reference.id, reference.tier, win_rate, len(comparisons), agree, verdict)


def policy_paintings(path: Path, last_steps: int) -> list[Path]:
    """A run directory's paintings of its last steps, or every PNG under any other folder."""
    run = RunReader(path)
    if run.film.is_dir():
        return [r.png for step in run.steps()[-last_steps:] for r in run.rollouts(step) if r.png]
    return sorted(path.rglob("*.png"))

"""The graded reference pool's format: the environment's judge faces its paintings, studio's workbench
makes and calibrates them. A folder (a Hub dataset's snapshot is one) holds `metadata.jsonl`, one JSON
object a line (`file_name`, `tier`, `subject`, and optionally `source`, `generator`, `hpsv3_mu`,
`paint_coverage`), beside `images/`. It is validated on load and sampled by a tier mix with a caller's
seed, so all rollouts of one step face the same references.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

TIERS = ("love", "okay", "meh", "nope")


class ReferencePoolError(ValueError):
    """The reference pool cannot be used as asked: a clear message says why."""


@dataclass(frozen=True)
class PoolEntry:
    id: str
    tier: str
    subject: str
    image: Path
    source: Path | None


@dataclass(frozen=True)
class Reference:
    """A painting the judge compares a candidate with."""

    id: str
    tier: str
    png: bytes


class ReferencePool:
    def __init__(self, entries: list[PoolEntry], origin: str):
        self.entries = entries
        self.origin = origin

    @classmethod
    def from_folder(cls, folder: Path) -> ReferencePool:
        metadata = folder / "metadata.jsonl"
        if not metadata.is_file():
            raise ReferencePoolError(f"{folder}: no metadata.jsonl")
        entries = [
            _entry(folder, number, line) for number, line in enumerate(metadata.read_text().splitlines(), 1) if line.strip()
        ]
        if not entries:
            raise ReferencePoolError(f"{metadata}: no paintings")
        return cls(entries, origin=str(folder))

    def tiers(self) -> dict[str, int]:
        return {tier: sum(entry.tier == tier for entry in self.entries) for tier in TIERS}

    def check(self, tier_mix: dict[str, float], count: int) -> dict[str, int]:
        """The references of each tier that `count` takes with `tier_mix`; ReferencePoolError when the pool holds too
        few of one. It does not depend on the seed, so a server can refuse a count before it draws anything."""
        problem = shortfall(tier_mix, count, self.tiers())
        if problem:
            raise ReferencePoolError(f"{problem}; the pool is {self.origin}")
        return quotas(tier_mix, count)

    def sample(self, tier_mix: dict[str, float], count: int, seed: int) -> list[Reference]:
        """`count` references split by `tier_mix` (largest remainder), the same for the same seed."""
        rng = random.Random(seed)
        chosen = []
        for tier, quota in self.check(tier_mix, count).items():
            candidates = sorted((e for e in self.entries if e.tier == tier), key=lambda e: e.id)
            chosen += rng.sample(candidates, quota)
        return [Reference(id=e.id, tier=e.tier, png=e.image.read_bytes()) for e in chosen]


def shortfall(tier_mix: dict[str, float], count: int, held: dict[str, int]) -> str | None:
    """Why `count` references split by `tier_mix` cannot be drawn from a pool holding `held` of each tier, if they
    cannot: the env's own check of an episode and the trainer's, over /ready's numbers, say it the same way."""
    wanted = quotas(tier_mix, count)
    short = {tier: quota for tier, quota in wanted.items() if held.get(tier, 0) < quota}
    if not short:
        return None
    parts = ", ".join(f"{quota} {tier!r} (the pool holds {held.get(tier, 0)})" for tier, quota in short.items())
    return f"{count} judge references per rollout with the tier mix {tier_mix} need {parts}"


def quotas(tier_mix: dict[str, float], count: int) -> dict[str, int]:
    """Largest-remainder rounding: {"love": 1, "okay": 1} of 3 -> love 2, okay 1 (ties by tier order)."""
    unknown = set(tier_mix) - set(TIERS)
    if unknown or not tier_mix or any(weight < 0 for weight in tier_mix.values()) or sum(tier_mix.values()) <= 0:
        raise ReferencePoolError(f"a tier mix needs non-negative weights over {TIERS}; got {tier_mix}")
    total = sum(tier_mix.values())
    exact = {tier: count * weight / total for tier, weight in tier_mix.items()}
    floors = {tier: int(value) for tier, value in exact.items()}
    leftover = count - sum(floors.values())
    by_remainder = sorted(tier_mix, key=lambda tier: (-(exact[tier] - floors[tier]), TIERS.index(tier)))
    for tier in by_remainder[:leftover]:
        floors[tier] += 1
    return {tier: quota for tier, quota in floors.items() if quota}


def _entry(folder: Path, number: int, line: str) -> PoolEntry:
    where = f"{folder / 'metadata.jsonl'}:{number}"
    try:
        row = json.loads(line)
    except json.JSONDecodeError as error:
        raise ReferencePoolError(f"{where}: not JSON ({error.msg})") from None
    if row.get("tier") not in TIERS:
        raise ReferencePoolError(f"{where}: unknown tier {row.get('tier')!r}; tiers are {TIERS}")
    image = folder / str(row.get("file_name", ""))
    if not row.get("file_name") or not image.is_file():
        raise ReferencePoolError(f"{where}: image {row.get('file_name')!r} is missing")
    source = folder / row["source"] if row.get("source") else None
    if source is not None and not source.is_file():
        raise ReferencePoolError(f"{where}: source {row['source']!r} is missing")
    return PoolEntry(id=Path(row["file_name"]).stem, tier=row["tier"], subject=row.get("subject", ""), image=image, source=source)

"""The graded reference pool: loaded from a local imagefolder or a Hub dataset at a
revision resolved to its commit, validated on load, and sampled by a tier mix with a
caller's seed (all rollouts of one step face the same references).

Layout: `metadata.jsonl` (one JSON object a line: `file_name`, `tier`, `subject`,
and optionally `source`, `generator`, `hpsv3_mu`, `paint_coverage`) beside `images/`.
"""

from __future__ import annotations

import json
import logging
import random
import re
from dataclasses import dataclass
from pathlib import Path

from watercolour_env.judge.pairwise import Reference

TIERS = ("love", "okay", "meh", "nope")
DEFAULT_MIX = {"love": 2, "okay": 2}
BUNDLED_POOL = Path(__file__).resolve().parent.parent / "data" / "pool"
COMMIT = re.compile(r"[0-9a-f]{40}")

log = logging.getLogger(__name__)


class PoolError(ValueError):
    """The pool cannot be used as asked: a clear message says why."""


@dataclass(frozen=True)
class PoolEntry:
    id: str
    tier: str
    subject: str
    image: Path
    source: Path | None


class ReferencePool:
    def __init__(self, entries: list[PoolEntry], origin: str):
        self.entries = entries
        self.origin = origin

    @classmethod
    def from_folder(cls, folder: Path) -> ReferencePool:
        metadata = folder / "metadata.jsonl"
        if not metadata.is_file():
            raise PoolError(f"{folder}: no metadata.jsonl")
        entries = [
            _entry(folder, number, line) for number, line in enumerate(metadata.read_text().splitlines(), 1) if line.strip()
        ]
        if not entries:
            raise PoolError(f"{metadata}: no paintings")
        return cls(entries, origin=str(folder))

    @classmethod
    def from_hub(cls, repo_id: str, revision: str, *, endpoint: str | None = None, token: str | None = None) -> ReferencePool:
        """A Hub dataset at `revision`, downloaded once into the Hub cache (HF_HOME). The endpoint and
        token default to huggingface_hub's own (HF_ENDPOINT, HF_TOKEN or a saved login). The origin
        names the commit loaded, so reports say which pool a run faced even when `revision` is a
        branch, which the next run may find moved."""
        asked = f"the reference pool {repo_id}@{revision}"
        folder, commit = _download(asked, repo_id, revision, endpoint, token)
        try:
            pool = cls.from_folder(folder)
        except PoolError as error:
            raise PoolError(f"{asked} (commit {commit}): {error}") from None
        pool.origin = f"{repo_id}@{commit}"
        if not COMMIT.fullmatch(revision):
            pool.origin += f" (from {revision!r})"
            log.warning("%s is not pinned: it loaded commit %s; pin it with WATERCOLOUR_POOL_REVISION=%s", asked, commit, commit)
        return pool

    def tiers(self) -> dict[str, int]:
        return {tier: sum(entry.tier == tier for entry in self.entries) for tier in TIERS}

    def sample(self, mix: dict[str, float], count: int, seed: int) -> list[Reference]:
        """`count` references split by `mix` (largest remainder), the same for the same seed."""
        rng = random.Random(seed)
        chosen = []
        for tier, quota in quotas(mix, count).items():
            candidates = sorted((e for e in self.entries if e.tier == tier), key=lambda e: e.id)
            if len(candidates) < quota:
                raise PoolError(f"the mix asks for {quota} {tier!r} references; the pool ({self.origin}) has {len(candidates)}")
            chosen += rng.sample(candidates, quota)
        return [Reference(id=e.id, tier=e.tier, png=e.image.read_bytes()) for e in chosen]


def quotas(mix: dict[str, float], count: int) -> dict[str, int]:
    """Largest-remainder rounding: {"love": 1, "okay": 1} of 3 -> love 2, okay 1 (ties by tier order)."""
    unknown = set(mix) - set(TIERS)
    if unknown or not mix or any(weight < 0 for weight in mix.values()) or sum(mix.values()) <= 0:
        raise PoolError(f"a tier mix needs non-negative weights over {TIERS}; got {mix}")
    total = sum(mix.values())
    exact = {tier: count * weight / total for tier, weight in mix.items()}
    floors = {tier: int(value) for tier, value in exact.items()}
    leftover = count - sum(floors.values())
    by_remainder = sorted(mix, key=lambda tier: (-(exact[tier] - floors[tier]), TIERS.index(tier)))
    for tier in by_remainder[:leftover]:
        floors[tier] += 1
    return {tier: quota for tier, quota in floors.items() if quota}


def _entry(folder: Path, number: int, line: str) -> PoolEntry:
    where = f"{folder / 'metadata.jsonl'}:{number}"
    try:
        row = json.loads(line)
    except json.JSONDecodeError as error:
        raise PoolError(f"{where}: not JSON ({error.msg})") from None
    if row.get("tier") not in TIERS:
        raise PoolError(f"{where}: unknown tier {row.get('tier')!r}; tiers are {TIERS}")
    image = folder / str(row.get("file_name", ""))
    if not row.get("file_name") or not image.is_file():
        raise PoolError(f"{where}: image {row.get('file_name')!r} is missing")
    source = folder / row["source"] if row.get("source") else None
    if source is not None and not source.is_file():
        raise PoolError(f"{where}: source {row['source']!r} is missing")
    return PoolEntry(id=Path(row["file_name"]).stem, tier=row["tier"], subject=row.get("subject", ""), image=image, source=source)


def _download(asked: str, repo_id: str, revision: str, endpoint: str | None, token: str | None) -> tuple[Path, str]:
    """The snapshot folder and the commit `revision` resolved to; Hub failures become a PoolError naming `asked`."""
    from huggingface_hub import HfApi, snapshot_download
    from huggingface_hub.errors import EntryNotFoundError, RepositoryNotFoundError, RevisionNotFoundError, RevisionResolutionError

    try:
        commit = HfApi(endpoint=endpoint, token=token).resolve_revision(repo_id, repo_type="dataset", revision=revision)
        folder = snapshot_download(repo_id, repo_type="dataset", revision=commit, endpoint=endpoint, token=token)
    except RepositoryNotFoundError as error:
        status = error.response.status_code
        raise PoolError(f"{asked}: no such dataset on the Hub, or the token cannot read it (HTTP {status})") from error
    except RevisionNotFoundError as error:
        raise PoolError(f"{asked}: the dataset has no revision {revision!r}") from error
    except (OSError, EntryNotFoundError, RevisionResolutionError) as error:
        raise PoolError(f"{asked}: could not be downloaded ({type(error).__name__}: {error})") from error
    return Path(folder), commit.resolved

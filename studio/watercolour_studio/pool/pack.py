"""Graded paintings as a reference pool in the imagefolder layout the judge loads: images/ and
sources/ named by tier, metadata.jsonl with tier, subject, generator and source, and a card.
The result is loaded back with the judge's own loader before anyone uses it."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

from watercolour_shared.reference_pool import TIERS, ReferencePool
from watercolour_studio.durable import write_whole
from watercolour_studio.pool.collection import Collection


class PackError(ValueError):
    """The pool cannot be packed as asked; the message says why."""


def pack(folders: list[Path], out: Path) -> ReferencePool:
    if out.exists() and any(out.iterdir()):
        raise PackError(f"{out} is not empty: pack into a new folder")
    graded = list(_graded(folders))
    if not graded:
        raise PackError("no graded painting: grade some with `watercolour pool rate DIR` first")
    numbers: Counter[str] = Counter()
    rows = []
    for collection, row, tier in sorted(graded, key=lambda item: TIERS.index(item[2])):
        numbers[tier] += 1
        rows.append(_copy(collection.folder, row, tier, f"{tier}-{numbers[tier]:03d}", out))
    write_whole(out / "metadata.jsonl", "".join(json.dumps(row) + "\n" for row in rows).encode())
    write_whole(out / "README.md", _card(rows).encode())
    return ReferencePool.from_folder(out)


def _graded(folders: list[Path]):
    for folder in folders:
        collection = Collection(folder)
        grades = collection.grades()
        for row in collection.rows():
            if row.get("file_name") in grades:
                yield collection, row, grades[row["file_name"]]


def _copy(folder: Path, row: dict, tier: str, name: str, out: Path) -> dict:
    (out / "images").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(folder / row["file_name"], out / "images" / f"{name}.png")
    packed = {
        **row,
        "file_name": f"images/{name}.png",
        "tier": tier,
        "subject": row.get("subject", ""),
        "generator": row.get("generator", ""),
    }
    if row.get("source") and (folder / row["source"]).is_file():
        (out / "sources").mkdir(exist_ok=True)
        shutil.copyfile(folder / row["source"], out / "sources" / f"{name}.js")
        packed["source"] = f"sources/{name}.js"
    else:
        packed.pop("source", None)
    return packed


def _card(rows: list[dict]) -> str:
    tiers = Counter(row["tier"] for row in rows)
    subjects = sorted({row["subject"] for row in rows})
    counts = ", ".join(f"{tiers[tier]} {tier}" for tier in TIERS if tiers[tier])
    return (
        "---\ntask_categories:\n- image-classification\ntags:\n- watercolour-rl\n- reference-pool\n---\n\n"
        "# Watercolour reference pool\n\n"
        f"{len(rows)} paintings graded by hand ({counts}) of {', '.join(subjects)}, for the watercolour-rl pairwise judge.\n"
        "Imagefolder layout: `images/`, `metadata.jsonl` (file_name, tier, subject, generator, source), and each\n"
        "painting's p5.brush code in `sources/`. Made with `watercolour pool pack`.\n"
    )


def push(folder: Path, repo_id: str, token: str | None, private: bool) -> str:
    """Uploads the pool as a Hub dataset; returns the commit to pin with WATERCOLOUR_POOL_REVISION."""
    from huggingface_hub import HfApi

    api = HfApi(token=token)  # the Hub is HF_ENDPOINT, huggingface.co by default
    api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    return api.upload_folder(folder_path=folder, repo_id=repo_id, repo_type="dataset", commit_message="watercolour pool pack").oid

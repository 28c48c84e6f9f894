"""Pushing a run: the adapter with its film to a model repo, and the rollouts as a dataset (one row each)."""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

from datasets import Dataset, Features, Image, Value
from huggingface_hub import HfApi

from watercolour_trainer.film import RunDirectory

log = logging.getLogger(__name__)

ROLLOUT_FEATURES = Features(
    {
        "step": Value("int32"),
        "index": Value("int32"),
        "reward": Value("float32"),
        "status": Value("string"),
        "violations": Value("string"),
        "gate": Value("float32"),
        "length": Value("float32"),
        "judge": Value("float32"),
        "hps": Value("float32"),
        "code": Value("string"),
        "image": Image(),
    }
)


def push_run(run: RunDirectory, repo_id: str, api: HfApi | None = None) -> dict[str, str]:
    """Returns the URLs of the adapter repo and the rollouts dataset."""
    api = api or HfApi()
    adapter_url = api.create_repo(repo_id, exist_ok=True)
    api.upload_folder(folder_path=run.adapter, repo_id=repo_id, commit_message="LoRA adapter")
    api.upload_folder(
        folder_path=run.root, repo_id=repo_id, allow_patterns=["film/**", "metrics.jsonl", "run.json"], commit_message="film"
    )
    dataset_id = f"{repo_id}-rollouts"
    dataset_url = api.create_repo(dataset_id, repo_type="dataset", exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        parquet = Path(folder) / "data" / "train-00000-of-00001.parquet"
        parquet.parent.mkdir()
        rollouts_dataset(run).to_parquet(str(parquet))
        api.upload_folder(folder_path=folder, repo_id=dataset_id, repo_type="dataset", commit_message="rollouts")
    log.info("pushed the adapter to %s and the rollouts to %s", adapter_url, dataset_url)
    return {"adapter": str(adapter_url), "rollouts": str(dataset_url)}


def rollouts_dataset(run: RunDirectory) -> Dataset:
    rows = [_row(run, rollout) for step in run.steps_recorded() for rollout in run.rollouts(step)]
    return Dataset.from_list(rows, features=ROLLOUT_FEATURES)


def _row(run: RunDirectory, rollout: dict) -> dict:
    stem = run.step_dir(rollout["step"]) / f"rollout-{rollout['index']:02d}"
    evaluation = rollout["evaluation"] or {}
    render, reward = evaluation.get("render", {}), evaluation.get("reward", {})
    image = stem.with_suffix(".png")
    return {
        "step": rollout["step"],
        "index": rollout["index"],
        "reward": rollout["reward"],
        "status": render.get("status", "unavailable"),
        "violations": ",".join(v["code"] for v in render.get("violations", [])),
        **{term: reward.get(term) for term in ("gate", "length", "judge", "hps")},
        "code": stem.with_suffix(".js").read_text(),
        # Bytes, not a path: the parquet file must carry the painting itself.
        "image": {"bytes": image.read_bytes(), "path": image.name} if image.exists() else None,
    }

"""Pushing a run: the trained weights with the run's records to a model repo, and the rollouts as a dataset (one row each)."""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

from datasets import Dataset, Features, Image, Value
from huggingface_hub import HfApi

from watercolour_shared.reward import MIX_TERMS
from watercolour_shared.run_dir import RECORDS, FilmRollout, RunReader
from watercolour_shared.run_dir.layout import rollouts_repo

log = logging.getLogger(__name__)

ROLLOUT_FEATURES = Features(
    {
        "step": Value("int32"),
        "index": Value("int32"),
        "reward": Value("float32"),
        "status": Value("string"),
        "violations": Value("string"),
        **{term: Value("float32") for term in MIX_TERMS},
        "code": Value("string"),
        "image": Image(),
    }
)


def push_run(run: RunReader, repo_id: str, api: HfApi | None = None) -> dict[str, str]:
    """Returns the URLs of the model repo (adapter or whole model) and the rollouts dataset."""
    api = api or HfApi()
    saved = run.saved_weights()
    if saved is None:
        raise FileNotFoundError(f"{run.root} holds no trained weights to push (adapter/ or model/)")
    adapter_url = api.create_repo(repo_id, exist_ok=True)
    message = "LoRA adapter" if saved.kind == "adapter" else "model"
    api.upload_folder(folder_path=saved.folder, repo_id=repo_id, commit_message=message)
    api.upload_folder(folder_path=run.root, repo_id=repo_id, allow_patterns=list(RECORDS), commit_message="film")
    dataset_id = rollouts_repo(repo_id)
    dataset_url = api.create_repo(dataset_id, repo_type="dataset", exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        parquet = Path(folder) / "data" / "train-00000-of-00001.parquet"
        parquet.parent.mkdir()
        rollouts_dataset(run).to_parquet(str(parquet))
        api.upload_folder(folder_path=folder, repo_id=dataset_id, repo_type="dataset", commit_message="rollouts")
    log.info("pushed the %s to %s and the rollouts to %s", saved.kind, adapter_url, dataset_url)
    return {"adapter": str(adapter_url), "rollouts": str(dataset_url)}


def rollouts_dataset(run: RunReader) -> Dataset:
    return Dataset.from_list([_row(rollout) for rollout in run.all_rollouts()], features=ROLLOUT_FEATURES)


def _row(rollout: FilmRollout) -> dict:
    record = rollout.record
    return {
        "step": record.step,
        "index": record.index,
        "reward": record.reward,
        "status": record.status,
        "violations": ",".join(record.violations),
        **record.scores(),
        "code": record.code,
        # Bytes, not a path: the parquet file must carry the painting itself.
        "image": {"bytes": rollout.png.read_bytes(), "path": rollout.png.name} if rollout.png else None,
    }

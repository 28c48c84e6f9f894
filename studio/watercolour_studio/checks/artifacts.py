"""What a run must leave behind: the adapter and the rollouts dataset (on disk, or on
the Hub once pushed there), and code that opens for every painting.

On disk the rollouts dataset is rollouts/ when it was exported; a run that neither exported
nor pushed it keeps its rollouts only in the film, which then has to hold them."""

from __future__ import annotations

import json
from pathlib import Path

from watercolour_studio.checks.report import Check
from watercolour_studio.film.records import Rollout

ADAPTER_WEIGHTS = ("adapter_model.safetensors", "adapter_model.bin")
ALL_THERE = "the adapter, the rollouts dataset and every painting's code are there"


def artifacts(root: Path, rollouts: list[Rollout], hub, adapter_repo: str | None, rollouts_repo: str | None) -> Check:
    adapter = _hub_adapter(hub, adapter_repo) if adapter_repo else _local_adapter(root / "adapter")
    dataset = _hub_rollouts(hub, rollouts_repo) if rollouts_repo else _local_rollouts(root / "rollouts", rollouts)
    found = {"the adapter": adapter, "the rollouts dataset": dataset, "every painting's code": _code_opens(rollouts)}
    problems = [name for name, (ok, _) in found.items() if not ok]
    line = f"missing or unreadable: {', '.join(problems)}" if problems else ALL_THERE
    return Check("artifacts exist", "fail" if problems else "pass", line, [text for _, text in found.values()])


def _local_adapter(folder: Path) -> tuple[bool, str]:
    weights = [name for name in ADAPTER_WEIGHTS if (folder / name).is_file()]
    if not (folder / "adapter_config.json").is_file() or not weights:
        return False, f"no adapter in {folder} (adapter_config.json and {' or '.join(ADAPTER_WEIGHTS)})"
    return True, f"adapter: {folder / weights[0]}"


def _local_rollouts(folder: Path, rollouts: list[Rollout]) -> tuple[bool, str]:
    metadata = folder / "metadata.jsonl"
    if not folder.exists():
        return bool(rollouts), f"rollouts: {len(rollouts)} records in the film (not exported to {folder.name}/, not pushed)"
    if not metadata.is_file():
        return False, f"no rollouts dataset in {folder} (metadata.jsonl)"
    rows = [json.loads(line) for line in metadata.read_text().splitlines() if line.strip()]
    missing = [row.get("file_name") for row in rows if not (folder / str(row.get("file_name"))).is_file()]
    if missing:
        return False, f"rollouts dataset: {len(missing)} of {len(rows)} images missing, e.g. {missing[0]}"
    return True, f"rollouts dataset: {len(rows)} rows in {folder}"


def _hub_adapter(hub, repo: str) -> tuple[bool, str]:
    files = _hub_files(hub, repo, "model")
    if isinstance(files, str):
        return False, files
    ok = "adapter_config.json" in files and any(name in files for name in ADAPTER_WEIGHTS)
    return ok, f"adapter on the Hub: {repo}" if ok else f"the Hub model {repo} holds no adapter ({len(files)} files)"


def _hub_rollouts(hub, repo: str) -> tuple[bool, str]:
    files = _hub_files(hub, repo, "dataset")
    if isinstance(files, str):
        return False, files
    ok = any(name.endswith(("metadata.jsonl", ".parquet")) for name in files)
    return ok, f"rollouts dataset on the Hub: {repo}" if ok else f"the Hub dataset {repo} holds no rows ({len(files)} files)"


def _hub_files(hub, repo: str, repo_type: str) -> list[str] | str:
    """The repository's files, or why they could not be listed."""
    try:
        return hub.list_repo_files(repo, repo_type=repo_type)
    except Exception as error:  # noqa: BLE001 - any Hub failure is this check's failure, with its reason
        return f"cannot list the Hub {repo_type} {repo}: {type(error).__name__}: {str(error)[:200]}"


def _code_opens(rollouts: list[Rollout]) -> tuple[bool, str]:
    painted = [r for r in rollouts if r.png is not None]
    broken = [r for r in painted if not _opens(r.js)]
    if broken:
        where = ", ".join(f"step {r.step} rollout {r.index}" for r in broken[:5])
        return False, f"{len(broken)} of {len(painted)} paintings have no readable code: {where}"
    return True, f"code opens for all {len(painted)} paintings"


def _opens(path: Path | None) -> bool:
    try:
        return path is not None and bool(path.read_bytes().decode("utf-8").strip())
    except (OSError, UnicodeDecodeError):
        return False

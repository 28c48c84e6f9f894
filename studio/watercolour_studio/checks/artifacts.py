"""What a run must leave behind: its trained weights (an adapter, or the whole model when every weight
trained) and the rollouts dataset, on disk or on the Hub once pushed there, and code that opens for
every painting.

On disk the rollouts are the film's records (docs/run-directory.md): the trainer builds the Hub dataset
from them when it pushes, and writes no other copy."""

from __future__ import annotations

from pathlib import Path

from watercolour_shared.run_dir import FilmRollout, RunReader, WeightsKind, weights_kind
from watercolour_studio.checks.report import Check

WHAT = {"adapter": "the adapter", "model": "the model", None: "the trained weights"}
ALL_THERE = "the rollouts dataset and every painting's code are there"


def artifacts(run: RunReader, rollouts: list[FilmRollout], hub, weights_repo: str | None, rollouts_repo: str | None) -> Check:
    plan = run.plan()
    expected = plan.saves if plan else None  # a run without a plan may have saved either
    weights = _hub_weights(hub, weights_repo, expected) if weights_repo else _local_weights(run, expected)
    dataset = _hub_rollouts(hub, rollouts_repo) if rollouts_repo else _film_rollouts(run, rollouts)
    found = {WHAT[expected]: weights, "the rollouts dataset": dataset, "every painting's code": _code_opens(rollouts)}
    problems = [name for name, (ok, _) in found.items() if not ok]
    line = f"missing or unreadable: {', '.join(problems)}" if problems else f"{WHAT[expected]}, {ALL_THERE}"
    return Check("artifacts exist", "fail" if problems else "pass", line, [text for _, text in found.values()])


def _fits(kind: WeightsKind | None, expected: WeightsKind | None) -> bool:
    return kind is not None and expected in (None, kind)


def _local_weights(run: RunReader, expected: WeightsKind | None) -> tuple[bool, str]:
    saved = run.saved_weights()
    if saved is None:
        return False, f"no {WHAT[expected].removeprefix('the ')} in {run.adapter} or {run.model}"
    if not _fits(saved.kind, expected):
        return False, f"{saved.folder} holds {WHAT[saved.kind]}, but the plan trained {WHAT[expected]}"
    return True, f"{saved.kind}: {saved.folder}"


def _film_rollouts(run: RunReader, rollouts: list[FilmRollout]) -> tuple[bool, str]:
    if not rollouts:
        return False, f"no rollout records in {run.film} (not pushed either)"
    return True, f"rollouts: {len(rollouts)} records in {run.film} (not pushed)"


def _hub_weights(hub, repo: str, expected: WeightsKind | None) -> tuple[bool, str]:
    files = _hub_files(hub, repo, "model")
    if isinstance(files, str):
        return False, files
    kind = weights_kind(files)
    if not _fits(kind, expected):
        return False, f"the Hub model {repo} holds no {WHAT[expected].removeprefix('the ')} ({len(files)} files)"
    return True, f"{kind} on the Hub: {repo}"


def _hub_rollouts(hub, repo: str) -> tuple[bool, str]:
    files = _hub_files(hub, repo, "dataset")
    if isinstance(files, str):
        return False, files
    ok = any(name.endswith(".parquet") for name in files)  # the trainer pushes the rollouts as one parquet file
    return ok, f"rollouts dataset on the Hub: {repo}" if ok else f"the Hub dataset {repo} holds no rows ({len(files)} files)"


def _hub_files(hub, repo: str, repo_type: str) -> list[str] | str:
    """The repository's files, or why they could not be listed."""
    try:
        return hub.list_repo_files(repo, repo_type=repo_type)
    except Exception as error:  # noqa: BLE001 - any Hub failure is this check's failure, with its reason
        return f"cannot list the Hub {repo_type} {repo}: {type(error).__name__}: {str(error)[:200]}"


def _code_opens(rollouts: list[FilmRollout]) -> tuple[bool, str]:
    painted = [r for r in rollouts if r.png is not None]
    broken = [r for r in painted if not _opens(r.js)]
    if broken:
        where = ", ".join(f"step {r.record.step} rollout {r.record.index}" for r in broken[:5])
        return False, f"{len(broken)} of {len(painted)} paintings have no readable code: {where}"
    return True, f"code opens for all {len(painted)} paintings"


def _opens(path: Path | None) -> bool:
    try:
        return path is not None and bool(path.read_bytes().decode("utf-8").strip())
    except (OSError, UnicodeDecodeError):
        return False

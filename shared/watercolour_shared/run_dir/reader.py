"""A run directory read on demand, while the trainer may still be writing it.

Nothing is held but a cache of parsed steps, keyed by each step folder's listing and modification
time: the writer renames whole files into a step folder, so a new rollout is always seen and an
unchanged step is never parsed twice (thousands of rollouts stay fast). The listing is part of the
key because two renames can share one coarse timestamp. A file that does not parse is skipped: a
metrics line is appended, so the last one may be read half-written. One that parses but does not
fit its record is skipped with a warning.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ValidationError

from watercolour_shared.run_dir.layout import (
    ADAPTER,
    CHECKPOINT_DIR,
    FILM_FILE,
    MODEL,
    PLAN,
    ROLLOUT_JSON,
    STEP_DIR,
    RunLayout,
    SavedWeights,
    turn_name,
    weights_kind,
)
from watercolour_shared.run_dir.records import RolloutRecord, RolloutTurn, RunPlan, StepMetrics
from watercolour_shared.sampling import Sampling

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FilmTurn:
    """One painting of a rollout with revisions, and its files; `png` is None when nothing was painted."""

    turn: RolloutTurn
    png: Path | None
    js: Path | None


@dataclass(frozen=True)
class FilmRollout:
    """A rollout's record and its files; `png` is None when nothing was painted. `turns`: with revisions, every
    painting of its episode, first to last (the last is also `png` and `js`); empty without."""

    record: RolloutRecord
    png: Path | None
    js: Path | None
    turns: tuple[FilmTurn, ...] = ()


class RunReader(RunLayout):
    def __init__(self, root: Path):
        super().__init__(root)
        self._steps: dict[int, tuple[tuple, list[FilmRollout]]] = {}

    def plan(self) -> RunPlan | None:
        """None before the trainer has written run.json."""
        return _parsed(RunPlan, self.plan_path.read_text()) if self.plan_path.is_file() else None

    def metrics(self) -> list[StepMetrics]:
        """One record per finished step, in step order."""
        lines = self.metrics_path.read_text().splitlines() if self.metrics_path.is_file() else []
        rows = (_parsed(StepMetrics, line) for line in lines)
        return sorted((row for row in rows if row is not None), key=lambda row: row.step)

    def steps(self) -> list[int]:
        found = (STEP_DIR.fullmatch(entry.name) for entry in self.film.iterdir()) if self.film.is_dir() else ()
        return sorted(int(match.group(1)) for match in found if match)

    def rollouts(self, step: int) -> list[FilmRollout]:
        folder = self.step_dir(step)
        if not folder.is_dir():
            return []
        names = frozenset(entry.name for entry in folder.iterdir())
        stamp = (folder.stat().st_mtime_ns, names)
        cached = self._steps.get(step)
        if cached is None or cached[0] != stamp:
            cached = (stamp, _read_step(folder, names))
            self._steps[step] = cached
        return cached[1]

    def all_rollouts(self) -> list[FilmRollout]:
        return [rollout for step in self.steps() for rollout in self.rollouts(step)]

    def rollout(self, step: int, index: int) -> FilmRollout | None:
        return next((r for r in self.rollouts(step) if r.record.index == index), None)

    def film_file(self, step: int, name: str) -> Path | None:
        """A painting or its code; None for any other name, so no request can leave the film."""
        path = self.step_dir(step) / name
        return path if FILM_FILE.fullmatch(name) and path.is_file() else None

    def saved_checkpoints(self) -> dict[int, Path]:
        """The checkpoints the trainer saved (checkpoints/checkpoint-N), by step, in step order."""
        entries = self.checkpoints.iterdir() if self.checkpoints.is_dir() else ()
        names = (CHECKPOINT_DIR.fullmatch(entry.name) for entry in entries)
        return dict(sorted((int(match.group(1)), self.checkpoints / match.group(0)) for match in names if match))

    def saved_weights(self) -> SavedWeights | None:
        """What the run saved: an adapter or a whole model, in either folder (early runs saved a whole model in adapter/)."""
        for folder in (self.adapter, self.model):
            kind = weights_kind({entry.name for entry in folder.iterdir()}) if folder.is_dir() else None
            if kind:
                return SavedWeights(kind, folder)
        return None


def run_sampling(path: Path | str) -> tuple[Sampling, str | None] | None:
    """How the run sampled that `path` is (a run directory) or holds the weights of (its adapter/ or model/), and
    a note when run.json does not record it (RunPlan.sampled); None when `path` is no run's, or its plan unreadable."""
    path = Path(path)
    root = path.parent if path.name in (ADAPTER, MODEL) and not (path / PLAN).is_file() else path
    plan = RunReader(root).plan() if (root / PLAN).is_file() else None
    return plan.sampled() if plan else None


def _parsed(record: type[BaseModel], text: str):
    try:
        return record.model_validate_json(text)
    except ValidationError as error:
        if error.errors()[0]["type"] != "json_invalid":
            log.warning("skipped a %s that does not fit the run directory's format: %s", record.__name__, error)
        return None


def _read_step(folder: Path, names: frozenset[str]) -> list[FilmRollout]:
    rollouts = []
    for name in names:
        record = _parsed(RolloutRecord, (folder / name).read_text()) if ROLLOUT_JSON.fullmatch(name) else None
        if record is not None:
            png, js = _files(folder, names, name.removesuffix(".json"))
            turns = tuple(FilmTurn(turn, *_files(folder, names, turn_name(record.index, turn.turn))) for turn in record.turns)
            rollouts.append(FilmRollout(record, png, js, turns))
    return sorted(rollouts, key=lambda r: r.record.index)


def _files(folder: Path, names: frozenset[str], stem: str) -> tuple[Path | None, Path | None]:
    """The painting and the code of `stem`, each None when the step folder holds none."""
    png, js = (folder / f"{stem}.{ext}" if f"{stem}.{ext}" in names else None for ext in ("png", "js"))
    return png, js

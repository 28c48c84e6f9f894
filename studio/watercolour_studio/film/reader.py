"""A run directory read on demand. Nothing is held but a cache of parsed steps,
keyed by each step folder's listing and modification time: the trainer renames
whole files into a step folder, so a new rollout is always seen and an unchanged
step is never parsed twice (thousands of rollouts stay fast). The listing is part
of the key because two renames can share one coarse timestamp."""

from __future__ import annotations

import json
import re
from pathlib import Path

from watercolour_studio.film.records import Rollout

STEP_DIR = re.compile(r"step-(\d+)")
ROLLOUT_JSON = re.compile(r"rollout-(\d+)\.json")
FILM_FILE = re.compile(r"rollout-\d+\.(png|js)")


class RunDir:
    def __init__(self, root: Path):
        self.root = root
        self._steps: dict[int, tuple[tuple, list[Rollout]]] = {}

    def plan(self) -> dict:
        """run.json, or {} before the trainer has written it."""
        path = self.root / "run.json"
        return json.loads(path.read_text()) if path.is_file() else {}

    def metrics(self) -> list[dict]:
        """One object per finished step; a line that does not parse is skipped."""
        path = self.root / "metrics.jsonl"
        lines = path.read_text().splitlines() if path.is_file() else []
        return sorted((row for row in map(_json_or_none, lines) if isinstance(row, dict)), key=lambda row: row.get("step", 0))

    def steps(self) -> list[int]:
        film = self.root / "film"
        found = (STEP_DIR.fullmatch(entry.name) for entry in film.iterdir()) if film.is_dir() else ()
        return sorted(int(match.group(1)) for match in found if match)

    def step_dir(self, step: int) -> Path:
        return self.root / "film" / f"step-{step:06d}"

    def rollouts(self, step: int) -> list[Rollout]:
        folder = self.step_dir(step)
        if not folder.is_dir():
            return []
        names = frozenset(entry.name for entry in folder.iterdir())
        stamp = (folder.stat().st_mtime_ns, names)
        cached = self._steps.get(step)
        if cached is None or cached[0] != stamp:
            cached = (stamp, _read_step(step, folder, names))
            self._steps[step] = cached
        return cached[1]

    def all_rollouts(self) -> list[Rollout]:
        return [rollout for step in self.steps() for rollout in self.rollouts(step)]

    def rollout(self, step: int, index: int) -> Rollout | None:
        return next((r for r in self.rollouts(step) if r.index == index), None)

    def film_file(self, step: int, name: str) -> Path | None:
        """A painting or its code; None for any other name, so no request can leave the film."""
        path = self.step_dir(step) / name
        return path if FILM_FILE.fullmatch(name) and path.is_file() else None


def _json_or_none(line: str):
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        return None


def _read_step(step: int, folder: Path, names: frozenset[str]) -> list[Rollout]:
    rollouts = []
    for name in names:
        match = ROLLOUT_JSON.fullmatch(name)
        record = _json_or_none((folder / name).read_text()) if match else None
        if isinstance(record, dict):
            stem = name.removesuffix(".json")
            png, js = (folder / f"{stem}.{ext}" if f"{stem}.{ext}" in names else None for ext in ("png", "js"))
            rollouts.append(Rollout(step=step, index=int(match.group(1)), record=record, png=png, js=js))
    return sorted(rollouts, key=lambda r: r.index)

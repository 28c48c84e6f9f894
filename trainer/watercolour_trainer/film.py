"""The run directory on disk (docs/run-directory.md): the film of every rollout, the step metrics, the plan.

Every file is written whole under a temporary name and renamed, so the gallery can read while
training writes. On --resume the steps after the checkpoint are removed: they are played again,
and the film neither loses nor duplicates a rollout.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
from pathlib import Path

from watercolour_shared.render_wire import Evaluation


def atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_bytes(data)
    temporary.replace(path)


class RunDirectory:
    def __init__(self, root: Path):
        self.root = Path(root)
        self.film = self.root / "film"
        self.metrics = self.root / "metrics.jsonl"
        self.checkpoints = self.root / "checkpoints"
        self.adapter = self.root / "adapter"

    def step_dir(self, step: int) -> Path:
        return self.film / f"step-{step:06d}"

    def write_plan(self, plan: dict) -> None:
        atomic_write(self.root / "run.json", json.dumps(plan, indent=2, default=str).encode())

    def record(self, step: int, index: int, code: str, record: dict, evaluation: Evaluation | None) -> None:
        stem = self.step_dir(step) / f"rollout-{index:02d}"
        atomic_write(stem.with_suffix(".js"), code.encode())
        png = evaluation.render.png_base64 if evaluation else None
        if png:
            atomic_write(stem.with_suffix(".png"), base64.b64decode(png))
        evaluation_json = evaluation.model_dump(mode="json") if evaluation else None
        if evaluation_json:
            evaluation_json["render"].pop("png_base64", None)
        body = {"step": step, "index": index, **record, "evaluation": evaluation_json}
        atomic_write(stem.with_suffix(".json"), json.dumps(body, indent=1).encode())

    def rollouts(self, step: int) -> list[dict]:
        return [json.loads(path.read_text()) for path in sorted(self.step_dir(step).glob("rollout-*.json"))]

    def append_metrics(self, metrics: dict) -> None:
        with self.metrics.open("a") as out:
            out.write(json.dumps(metrics) + "\n")

    def steps_recorded(self) -> list[int]:
        return sorted(int(path.name.split("-")[1]) for path in self.film.glob("step-*"))

    def trim_after(self, step: int) -> None:
        """Forget what came after `step`: a resumed run plays those steps again."""
        for later in (s for s in self.steps_recorded() if s > step):
            shutil.rmtree(self.step_dir(later))
        if self.metrics.exists():
            kept = [line for line in self.metrics.read_text().splitlines() if json.loads(line)["step"] <= step]
            atomic_write(self.metrics, "".join(line + "\n" for line in kept).encode())

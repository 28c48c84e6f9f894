"""The trainer's side of the run directory: every file is written whole under a temporary name and
renamed, so a reader sees complete files or none. On --resume the steps after the checkpoint are
removed: they are played again, and the film neither loses nor duplicates a rollout."""

from __future__ import annotations

import base64
import json
import os
import shutil
from pathlib import Path

from watercolour_shared.run_dir.reader import RunReader
from watercolour_shared.run_dir.records import RolloutRecord, RunPlan, StepMetrics


def atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_bytes(data)
    temporary.replace(path)


class RunWriter(RunReader):
    def write_plan(self, plan: RunPlan | dict) -> None:
        """A dict is checked against RunPlan first, so a plan the readers cannot use is never written."""
        checked = RunPlan.model_validate(plan)
        atomic_write(self.plan_path, json.dumps(checked.model_dump(mode="json"), indent=2).encode())

    def record(self, rollout: RolloutRecord) -> None:
        stem = self.rollout_stem(rollout.step, rollout.index)
        atomic_write(stem.with_suffix(".js"), rollout.code.encode())
        png = rollout.evaluation.render.png_base64 if rollout.evaluation else None
        if png:
            atomic_write(stem.with_suffix(".png"), base64.b64decode(png))
        for turn in rollout.turns:  # before the record: a reader that sees it sees its turns' files
            turn_stem = self.turn_stem(rollout.step, rollout.index, turn.turn)
            atomic_write(turn_stem.with_suffix(".js"), turn.code.encode())
            if turn.render and turn.render.png_base64:
                atomic_write(turn_stem.with_suffix(".png"), base64.b64decode(turn.render.png_base64))
        atomic_write(stem.with_suffix(".json"), json.dumps(rollout.as_json(), indent=1).encode())

    def append_metrics(self, metrics: StepMetrics) -> None:
        with self.metrics_path.open("a") as out:
            out.write(_line(metrics))

    def trim_after(self, step: int) -> None:
        """Forget what came after `step`: a resumed run plays those steps again."""
        for later in (s for s in self.steps() if s > step):
            shutil.rmtree(self.step_dir(later))
        if self.metrics_path.exists():
            kept = [metrics for metrics in self.metrics() if metrics.step <= step]  # a line torn by the kill goes too
            atomic_write(self.metrics_path, "".join(map(_line, kept)).encode())


def _line(metrics: StepMetrics) -> str:
    return json.dumps(metrics.model_dump(mode="json")) + "\n"

"""The demo's progress display: one line per GRPO step, read from RUN_DIR/metrics.jsonl as the trainer
appends it, and one line per stage before that."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Sequence

from watercolour_demo.looks_chosen import tally
from watercolour_harness.sketchgen.looks import Look
from watercolour_shared.run_dir import RunReader, StepMetrics


def say(text: str) -> None:
    print(text, file=sys.stdout, flush=True)


def clock(seconds: float) -> str:
    minutes, seconds = divmod(round(seconds), 60)
    return f"{minutes}:{seconds:02d}"


class MetricsFollower:
    """The steps of metrics.jsonl not seen yet; a line still being written is left for the next look."""

    def __init__(self, run: RunReader):
        self.run = run
        self.rows: list[StepMetrics] = []

    def new_rows(self) -> list[StepMetrics]:
        fresh = self.run.metrics()[len(self.rows) :]
        self.rows += fresh
        return fresh


def step_seconds(row: StepMetrics) -> float:
    return sum(row.timings.model_dump().values())


def step_line(row: StepMetrics, looks: Sequence[Look | None], rows: list[StepMetrics], total_steps: int, started: float) -> str:
    pace = statistics.fmean(step_seconds(r) for r in rows)
    left = pace * (total_steps - row.step)
    reward = "n/a" if row.reward_mean is None else f"{row.reward_mean:.3f} ±{row.reward_std:.3f}"
    gate = "n/a" if row.gate_pass_rate is None else f"{row.gate_pass_rate:.0%}"
    t = row.timings
    parts = f"generate {t.generation_s:.0f} s, render+score {t.render_s + t.scoring_s:.0f} s, train {t.training_s:.0f} s"
    return (
        f"step {row.step:>3}/{total_steps}  reward {reward}  gate pass {gate:>4}  "
        f"{tally(looks)}  ({parts})  "
        f"elapsed {clock(time.monotonic() - started)}  left ~{clock(left)}"
    )

"""Per-step monitoring: metrics.jsonl, trackio, and a loud warning when a group's gradient dies."""

from __future__ import annotations

import logging
import time
from datetime import datetime, timezone

from transformers import TrainerCallback

from watercolour_shared.run_dir import RunWriter, StepMetrics, by_group, mean_reward, summarise
from watercolour_trainer.compiled_generation import CompileCount
from watercolour_trainer.env_reward import StepClock

log = logging.getLogger(__name__)
# The numbers of a step that trackio charts, beside its components, violations and timings.
CHARTED = ("reward_mean", "reward_std", "gate_pass_rate", "below_0_3", "all_equal_groups", "dropped", "compiled_graphs")


class StepMonitor(TrainerCallback):
    """Runs on the main process after each optimisation step; every process has written its rollouts by then,
    because the step's gradient synchronisation waits for all of them."""

    def __init__(self, run: RunWriter, clock: StepClock, trackio=None):
        self.run = run
        self.clock = clock
        self.trackio = trackio
        self._compiled = CompileCount.now()
        self._steps_seen = 0

    def on_step_begin(self, args, state, control, **kwargs):
        self.clock.step_began = time.perf_counter()
        self._compiled = CompileCount.now()

    def on_step_end(self, args, state, control, **kwargs):
        if not state.is_world_process_zero:
            return
        step = state.global_step
        rollouts = [rollout.record for rollout in self.run.rollouts(step)]
        ended = datetime.now(timezone.utc).isoformat(timespec="seconds")
        compiled = CompileCount.now().since(self._compiled)
        timings = self.clock.split(time.perf_counter()).model_copy(update={"compile_s": compiled.seconds})
        metrics = summarise(step, rollouts, timings, ended).model_copy(update={"compiled_graphs": compiled.graphs})
        self.run.append_metrics(metrics)
        self._steps_seen += 1
        if compiled.graphs and self._steps_seen > 1:
            log.warning(
                "step %d compiled %d graph(s) again (%.1f s): a shape changed (TORCH_LOGS=recompiles says which)",
                step, compiled.graphs, compiled.seconds,
            )  # fmt: skip
        if metrics.all_equal_groups:
            log.warning("step %d: %d group(s) with all-equal rewards: no gradient from them", step, metrics.all_equal_groups)
        if metrics.dropped:
            log.warning("step %d: %d rollout(s) dropped (environment unavailable)", step, metrics.dropped)
        groups = " / ".join(_fmt(mean_reward(members)) for members in by_group(rollouts).values())
        log.info(
            "step %d: reward %s (by group: %s), gate pass %s",
            step, _fmt(metrics.reward_mean), groups, _fmt(metrics.gate_pass_rate),
        )  # fmt: skip
        if self.trackio is not None:
            self.trackio.log(self._trackio_row(metrics), step=step)

    def _trackio_row(self, metrics: StepMetrics) -> dict:
        numbers = metrics.model_dump(include=set(CHARTED))
        row = {f"watercolour/{key}": value for key, value in numbers.items() if value is not None}
        row |= {f"watercolour/component/{term}": value for term, value in metrics.components.items()}
        row |= {f"watercolour/violations/{code}": count for code, count in metrics.violations.items()}
        row |= {f"watercolour/time/{part}": seconds for part, seconds in metrics.timings.model_dump().items()}
        if metrics.best:
            row["watercolour/best_painting"] = self.trackio.Image(str(self.run.root / metrics.best))
        return row


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"

"""The demo's five stages in order: warm start, a look at it through the static gate, the local stack,
GRPO, and the final policy against its warm start on held-out subjects. Every process started here is ended
before this returns or raises (Ctrl-C included)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, replace
from pathlib import Path

from watercolour_demo.evaluation import ClosingEval, evaluate, numbers
from watercolour_demo.looks_chosen import step_looks
from watercolour_demo.prepare import prepare
from watercolour_demo.progress import MetricsFollower, clock, say, step_line
from watercolour_demo.training import GrpoSettings, start_trainer, trainer_command
from watercolour_demo.warm_start import WarmStartConfig
from watercolour_harness.processes import end_process_tree, ready
from watercolour_harness.stack import LocalStack
from watercolour_shared.run_dir import RunReader, StepMetrics
from watercolour_shared.run_dir.layout import RunLayout


def run_loop(
    warm: WarmStartConfig,
    grpo: GrpoSettings,
    cache_dir: Path,
    run_dir: Path,
    browsers: int,
    started: float,
    env_url: str | None,
    closing: ClosingEval,
):
    """The metrics of every step, and what the summary reports besides them. `env_url`: an environment already
    running (the compose CPU profile's), used instead of starting the local stack; `closing`: the held-out set and
    paintings per subject and policy of the closing evaluation (0 paintings: none)."""
    if env_url and ready(env_url.rstrip("/")) is None:  # before minutes of warm start, not after
        raise RuntimeError(f"the environment at {env_url} is not ready (GET /ready): start it, or leave out --env-url")
    run_dir.mkdir(parents=True, exist_ok=True)
    found = prepare(warm, cache_dir, grpo, started, RunLayout(run_dir).warm_start_record)
    grpo = replace(grpo, max_completion_length=found["max_completion_length"])
    with _environment(env_url, RunLayout(run_dir).logs, browsers) as url:
        say(f"[4/5] GRPO: {grpo.steps} steps of {grpo.group_size} rollouts, through {RunLayout(run_dir).logs / 'trainer.log'}")
        rows = _train(url, Path(found["folder"]), run_dir, grpo, started)
        try:
            evaluated, eval_failed = _evaluate(url, Path(found["folder"]), run_dir, grpo, closing, started), None
        except RuntimeError as error:  # the training is done: it is summarised all the same, and the demo exits 1
            say(f"      the evaluation failed: {error}")
            evaluated, eval_failed = None, str(error)
    context = {
        "settings": asdict(grpo),
        "warm_start": {"folder": found["folder"], **found["record"]},
        "warm_start_static_gate": found["static_gate"],
        "evaluation": evaluated,
        "evaluation_failed": eval_failed,
    }
    return rows, context


def _evaluate(
    env_url: str, warm_start: Path, run_dir: Path, grpo: GrpoSettings, closing: ClosingEval, started: float
) -> dict | None:
    if closing.samples < 1:
        say("[5/5] no evaluation (--eval-samples 0)")
        return None
    log = RunLayout(run_dir).logs / "eval.log"
    held_out = f"{closing.samples} paintings of each subject of {closing.subjects.stem}"
    say(f"[5/5] the final policy against its warm start: {held_out} each, through {log}")
    evaluation = numbers(evaluate(env_url, warm_start, run_dir, grpo, closing, log), closing.folder)
    say(f"      done, elapsed {clock(time.monotonic() - started)}")
    return evaluation


@contextmanager
def _environment(env_url: str | None, log_dir: Path, browsers: int) -> Iterator[str]:
    if env_url:
        say(f"[3/5] the environment at {env_url}: the trainer's preflight checks that it and its terms answer")
        yield env_url
        return
    say(f"[3/5] local services: Redis, the heuristic scorer, the environment with {browsers} browsers")
    with LocalStack(log_dir, browsers) as stack:
        say(f"      environment {stack.env_url}, scorer {stack.scorer_url}, Redis {stack.redis_url}")
        yield stack.env_url


def _train(env_url: str, model: Path, run_dir: Path, grpo: GrpoSettings, started: float) -> list[StepMetrics]:
    log = RunLayout(run_dir).logs / "trainer.log"
    trainer = start_trainer(trainer_command(env_url, model, run_dir, grpo), log)
    follower = MetricsFollower(RunReader(run_dir))
    try:
        while trainer.poll() is None:
            _report(follower, grpo.steps, started)
            time.sleep(1)
        _report(follower, grpo.steps, started)
    finally:
        end_process_tree(trainer)
    if trainer.returncode != 0:
        raise RuntimeError(f"the trainer exited with {trainer.returncode}: see {log}")
    return follower.rows


def _report(follower: MetricsFollower, steps: int, started: float) -> None:
    for row in follower.new_rows():
        looks = step_looks(follower.run, row.step)  # the film is written before the step's metrics
        say(step_line(row, looks, follower.rows, steps, started))

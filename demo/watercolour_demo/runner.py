"""The demo's four stages in order: warm start, a look at it through the static gate, the local stack,
GRPO. Every process started here is ended before this returns or raises (Ctrl-C included)."""

from __future__ import annotations

import math
import time
from dataclasses import asdict, replace
from pathlib import Path

from watercolour_demo.policy_check import check_policy
from watercolour_demo.processes import end_process_tree
from watercolour_demo.progress import MetricsFollower, clock, say, step_line
from watercolour_demo.stack import LocalStack
from watercolour_demo.training import GrpoSettings, start_trainer, trainer_command
from watercolour_demo.warm_start import WarmStartConfig, cached_warm_start

CHECK_SAMPLES = 16
TOP_K, TOP_P = 20, 0.95  # the launch script's sampling defaults, which the demo keeps


def fitted_length(record: dict) -> int:
    """Room for the warm start's longest reply and a quarter more, in whole 64-token blocks."""
    return 64 * math.ceil(record["reply_tokens"]["max"] * 1.25 / 64)


def run_loop(warm: WarmStartConfig, grpo: GrpoSettings, cache_dir: Path, run_dir: Path, browsers: int, started: float):
    """The metrics of every step, and what the summary reports besides them."""
    passes = f" x {warm.epochs}" if warm.epochs > 1 else ""
    say(f"[1/4] warm start: a {warm.size} policy trained on {warm.sketches}{passes} generated sketches (cached in {cache_dir})")
    folder, record = cached_warm_start(warm, cache_dir, on_step=_warm_start_progress(started))
    say(f"      {folder}: {record['parameters'] / 1e6:.1f} M parameters, loss {record['loss']['last']:.2f}")
    grpo = replace(grpo, max_completion_length=grpo.max_completion_length or fitted_length(record))

    say(f"[2/4] {CHECK_SAMPLES} replies of the warm start through the static gate")
    check = check_policy(folder, grpo.subject, CHECK_SAMPLES, grpo.max_completion_length, TOP_K, TOP_P, grpo.seed)
    violations = dict(check.violations) or "none"
    say(f"      {check.passed}/{check.samples} pass; {check.truncated} ran out of tokens; violations {violations}")

    say(f"[3/4] local services: Redis, the heuristic scorer, the environment with {browsers} browsers")
    with LocalStack(run_dir / "logs", browsers) as stack:
        say(f"      environment {stack.env_url}, scorer {stack.scorer_url}, Redis {stack.redis_url}")
        say(f"[4/4] GRPO: {grpo.steps} steps of {grpo.group_size} rollouts, through {run_dir / 'logs' / 'trainer.log'}")
        rows = _train(stack.env_url, folder, run_dir, grpo, started)
    context = {
        "settings": asdict(grpo),
        "warm_start": {"folder": str(folder), **record},
        "warm_start_static_gate": {"samples": check.samples, "passed": check.passed, "violations": dict(check.violations)},
    }
    return rows, context


def _train(env_url: str, model: Path, run_dir: Path, grpo: GrpoSettings, started: float) -> list[dict]:
    log = run_dir / "logs" / "trainer.log"
    trainer = start_trainer(trainer_command(env_url, model, run_dir, grpo), log)
    follower = MetricsFollower(run_dir / "metrics.jsonl")
    try:
        while trainer.poll() is None:
            for row in follower.new_rows():
                say(step_line(row, follower.rows, grpo.steps, started))
            time.sleep(1)
        for row in follower.new_rows():
            say(step_line(row, follower.rows, grpo.steps, started))
    finally:
        end_process_tree(trainer)
    if trainer.returncode != 0:
        raise RuntimeError(f"the trainer exited with {trainer.returncode}: see {log}")
    return follower.rows


def _warm_start_progress(started: float):
    began = time.monotonic()

    def report(step: int, steps: int, loss: float) -> None:
        if step % max(1, steps // 10) == 0 or step == steps:
            left = (time.monotonic() - began) / step * (steps - step)
            say(f"      step {step}/{steps}  loss {loss:.2f}  elapsed {clock(time.monotonic() - started)}  left ~{clock(left)}")

    return report

"""--resume_from_checkpoint last continues a killed run: the steps after the last checkpoint are played again, and the film
and the metrics hold every step exactly once."""

from __future__ import annotations

import json
import shutil

from tests.trainer.conftest import SHORT_RUN, run_trainer
from watercolour_shared.run_dir import RunReader


def train(env_url: str, model, run_dir, steps: int, *extra: str):
    return run_trainer(
        "--env_url", env_url, "--model_name_or_path", str(model), "--use_peft", "--lora_target_modules", "all-linear",
        "--mix", "hps-only", "--report_to", "none", "--max_steps", str(steps), "--save_steps", "1", *SHORT_RUN,
        "--output_dir", str(run_dir), *extra,
    )  # fmt: skip


def test_a_killed_run_resumes_without_losing_or_duplicating_rollouts(env_with_scorer_url, tiny_policy, tmp_path):
    run = RunReader(tmp_path / "run")
    first = train(env_with_scorer_url, tiny_policy, run.root, 2)
    assert first.returncode == 0, first.stderr[-3000:]
    # Killed after step 2's rollouts were filmed but before its checkpoint was written.
    shutil.rmtree(run.checkpoints / "checkpoint-2")
    step_two_before = {r.record.index: r.record.reply for r in run.rollouts(2)}

    resumed = train(env_with_scorer_url, tiny_policy, run.root, 3, "--resume_from_checkpoint", "last")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert "resuming from" in resumed.stderr and "checkpoint-1" in resumed.stderr
    assert run.steps() == [1, 2, 3]
    assert all(len(run.rollouts(step)) == 4 for step in (1, 2, 3))
    assert [json.loads(line)["step"] for line in run.metrics_path.read_text().splitlines()] == [1, 2, 3]
    assert {r.record.index: r.record.reply for r in run.rollouts(2)}.keys() == step_two_before.keys()


def test_resume_without_a_checkpoint_is_refused(env_with_scorer_url, tiny_policy, tmp_path):
    finished = train(env_with_scorer_url, tiny_policy, tmp_path / "empty", 1, "--resume_from_checkpoint", "last")
    assert finished.returncode == 2 and "no checkpoint" in finished.stderr

"""The CPU profile's `demo` service: a short GRPO run against env-cpu, in its container, whose run directory
(in the `runs` volume) passes `watercolour check-run` as a user would run it on what they copied out.

Two steps are too few for check-run's reward trend (skipped, as any run under 10 steps that does not trend
up is); nothing may fail, both steps' metrics must be read, and no reward component may be flat at 0."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from watercolour_shared.run_dir.evaluation import EVAL_DIR, read_evaluation
from watercolour_shared.subjects import DEMO_EVAL_SUBJECTS_FILE

TREND = "reward trends up"


def test_the_demo_service_trains_a_few_steps_and_its_run_passes_check_run(demo_run):
    # The closing eval ran in the container: the final policy against its warm start on the held-out subjects.
    evaluation = read_evaluation(demo_run / EVAL_DIR)
    assert evaluation is not None and evaluation.subjects.name == DEMO_EVAL_SUBJECTS_FILE.stem, evaluation
    assert evaluation.head_to_head.wins + evaluation.head_to_head.losses + evaluation.head_to_head.ties > 0
    command = [Path(sys.executable).parent / "watercolour", "check-run", str(demo_run), "--json"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    checks = {check["name"]: check for check in json.loads(done.stdout)}
    failed = {name: check for name, check in checks.items() if check["status"] == "fail"}
    assert done.returncode == 0 and not failed, failed
    trend = checks[TREND]
    assert trend["status"] == "skip" and trend["line"].startswith("2 steps with a mean reward"), trend
    assert "flat at 0" not in trend["line"] and all("over 2 steps" in line for line in trend["evidence"]), trend

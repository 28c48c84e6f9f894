"""The CPU profile's `demo` service: a short GRPO run against env-cpu, in its container, whose run directory
(in the `runs` volume) passes `watercolour check-run` as a user would run it on what they copied out.

Two steps are too few for check-run's reward trend (skipped, as any run under 10 steps that does not trend
up is); nothing may fail, both steps' metrics must be read, and no reward component may be flat at 0."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path

from tests.stack.compose import compose
from watercolour_shared.run_dir.evaluation import EVAL_DIR, read_evaluation
from watercolour_shared.subjects import DEMO_EVAL_SUBJECTS_FILE

# A warm start that learns its sketches by heart (a few minutes), so its replies pass the gate. Learnt by heart,
# one sketch per subject comes back the same in every rollout (check-run's "groups differ" failed, in groups of 4
# and of 8), so it learns three of each: its even sketches are GRPO's six subjects in turn, 36 sketches hold
# three of every one, and a group of 8 samples among them (all 8 alike: 3 ** -7, 0.05%).
SHORT_RUN = (
    "--steps 2 --group-size 8 --model-size small --warm-start-sketches 36 --warm-start-epochs 100 --temperature 1.0"
    " --report-to none --eval-samples 1"
)
TREND = "reward trends up"


def runs_volume(into: Path) -> list[Path]:
    """The runs volume's contents, read through the demo's own image (the files belong to its user)."""
    command = ["docker", "compose", "run", "--rm", "--no-deps", "-T", "--entrypoint", "tar", "demo", "-C", "/runs", "-c", "."]
    archive = subprocess.run(command, capture_output=True, check=True, timeout=300).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return sorted(into.glob("demo-*"))


def test_the_demo_service_trains_a_few_steps_and_its_run_passes_check_run(tmp_path):
    before = {run.name for run in runs_volume(tmp_path / "before")}
    compose("run", "--rm", "--no-deps", "-T", "-e", f"WATERCOLOUR_DEMO_ARGS={SHORT_RUN}", "demo", timeout_s=1800)
    runs = [run for run in runs_volume(tmp_path / "after") if run.name not in before]
    assert len(runs) == 1, runs
    # The closing eval ran in the container: the final policy against its warm start on the held-out subjects.
    evaluation = read_evaluation(runs[0] / EVAL_DIR)
    assert evaluation is not None and evaluation.subjects.name == DEMO_EVAL_SUBJECTS_FILE.stem, evaluation
    assert evaluation.head_to_head.wins + evaluation.head_to_head.losses + evaluation.head_to_head.ties > 0
    command = [Path(sys.executable).parent / "watercolour", "check-run", str(runs[0]), "--json"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    checks = {check["name"]: check for check in json.loads(done.stdout)}
    failed = {name: check for name, check in checks.items() if check["status"] == "fail"}
    assert done.returncode == 0 and not failed, failed
    trend = checks[TREND]
    assert trend["status"] == "skip" and trend["line"].startswith("2 steps with a mean reward"), trend
    assert "flat at 0" not in trend["line"] and all("over 2 steps" in line for line in trend["evidence"]), trend

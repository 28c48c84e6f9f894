"""The CPU profile's `demo` service: a short GRPO run against env-cpu, in its container, whose run directory
(in the `runs` volume) passes `watercolour check-run` as a user would run it on what they copied out.

A few steps rarely show a reward trend whose whole 95% interval is above 0, and check-run leaves a slope
whose interval spans 0 undecided (skipped) in a run this short; nothing may fail, and the slope must be
computed over every step with no reward component flat at 0."""

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

# A warm start that learns six sketches by heart (a minute or two): its replies pass the gate. Six, because the
# warm start's even sketches are GRPO's subjects in turn: the three steps' subjects are among them. By heart, its
# replies to one subject differ little: a group of 4 once came back four times the same (check-run's "groups
# differ" failed), so the groups are 8, sampled at temperature 1.
SHORT_RUN = (
    "--steps 3 --group-size 8 --model-size small --warm-start-sketches 6 --warm-start-epochs 200 --temperature 1.0"
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
    assert trend["status"] in ("pass", "skip") and trend["line"].startswith("slope"), trend
    assert ", 3 steps)" in trend["line"] and "flat at 0" not in trend["line"], trend

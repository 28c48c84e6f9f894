"""The CPU profile's `demo` service: a short GRPO run against env-cpu, in its container, whose run directory
(in the `runs` volume) passes `watercolour check-run` as a user would run it on what they copied out.

A few steps cannot show a reward trend whose whole 95% interval is above 0 (that takes the full demo and
even then not always: demo/README.md), so the trend check must compute its slope, not pass; every other
check must pass."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path

from tests.stack.compose import compose

# A warm start that learns four sketches by heart (a minute or two): its replies pass the gate and differ.
SHORT_RUN = "--steps 3 --group-size 4 --model-size small --warm-start-sketches 4 --warm-start-epochs 200 --report-to none"
TREND = "reward trends up"


def runs_volume(into: Path) -> list[Path]:
    """The runs volume's contents, read through the demo's own image (the files belong to its user)."""
    command = ["docker", "compose", "run", "--rm", "--no-deps", "-T", "--entrypoint", "tar", "demo", "-C", "/runs", "-c", "."]
    archive = subprocess.run(command, capture_output=True, check=True, timeout=300).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return sorted(into.glob("demo-*"))


def test_the_demo_service_trains_a_few_steps_and_its_run_passes_check_run(tmp_path):
    compose("run", "--rm", "--no-deps", "-T", "-e", f"WATERCOLOUR_DEMO_ARGS={SHORT_RUN}", "demo", timeout_s=1800)
    runs = runs_volume(tmp_path)
    assert len(runs) == 1, runs
    command = [Path(sys.executable).parent / "watercolour", "check-run", str(runs[0]), "--json"]
    checks = {check["name"]: check for check in json.loads(subprocess.run(command, capture_output=True, check=False).stdout)}
    failed = {name: check for name, check in checks.items() if check["status"] == "fail" and name != TREND}
    assert not failed, failed
    assert checks[TREND]["line"].startswith("slope") and "flat at 0" not in checks[TREND]["line"], checks[TREND]

"""Fixtures for the container stack tests (run by `make stack-test`, which brings the stack up first)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.stack.compose import ENV_SERVICE, Container, compose, containers, runs_volume, up

# A warm start that learns its sketches by heart (a few minutes), so its replies pass the gate. Learnt by heart,
# one sketch per subject comes back the same in every rollout (check-run's "groups differ" failed, in groups of 4
# and of 8), so it learns three of each: its even sketches are GRPO's six subjects in turn, 36 sketches hold
# three of every one, and a group of 8 samples among them (all 8 alike: 3 ** -7, 0.05%).
SHORT_RUN = (
    "--steps 2 --group-size 8 --model-size small --warm-start-sketches 36 --warm-start-epochs 100 --temperature 1.0"
    " --report-to none --eval-samples 1"
)


@pytest.fixture(scope="session", autouse=True)
def stack():
    """The images are built (stack-test.sh); bringing them up to healthy is part of what is tested."""
    started = time.perf_counter()
    up()
    seconds = round(time.perf_counter() - started, 1)
    print(f"\nstack-test: up to all healthy in {seconds} s")
    if os.environ.get("WATERCOLOUR_STACK_TIMINGS"):  # set by bench/stack_bench.py
        with open(os.environ["WATERCOLOUR_STACK_TIMINGS"], "a") as timings:
            timings.write(json.dumps({"phase": "up to all healthy", "seconds": seconds}) + "\n")


@pytest.fixture(scope="session")
def replicas(stack) -> list[Container]:
    found = containers(ENV_SERVICE)
    assert len(found) == 2, f"make stack-test starts two {ENV_SERVICE} replicas; found {len(found)}"
    return found


@pytest.fixture(scope="session")
def env_url(replicas) -> str:
    return replicas[0].url


@pytest.fixture(scope="session")
def demo_run(stack, tmp_path_factory) -> Path:
    """A short run of the `demo` service, left in the runs volume as a user's is; returned as a copy taken out of it."""
    scratch = tmp_path_factory.mktemp("runs")
    before = {run.name for run in runs_volume(scratch / "before")}
    compose("run", "--rm", "--no-deps", "-T", "-e", f"WATERCOLOUR_DEMO_ARGS={SHORT_RUN}", "demo", timeout_s=1800)
    runs = [run for run in runs_volume(scratch / "after") if run.name not in before]
    assert len(runs) == 1, runs
    return runs[0]

"""Fixtures for the container stack tests (run by `make stack-test`, which brings the stack up first)."""

from __future__ import annotations

import json
import os
import time

import pytest

from tests.stack.compose import ENV_SERVICE, Container, containers, up


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

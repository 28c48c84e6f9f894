"""Shared fixtures: real Chromium, real Redis, and a real server process."""

from __future__ import annotations

import os
import random
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from watercolour_env.gate.rules import load_rules
from watercolour_env.render.renderer import Renderer
from watercolour_env.services import EnvServices
from watercolour_env.settings import EnvSettings

ROOT = Path(__file__).resolve().parent.parent
SKETCHES = Path(__file__).resolve().parent / "sketches"
# Short enough that hostile sketches do not stall the suite, long enough for a real sketch.
TEST_DEADLINE_S = 20.0


def sketch(name: str) -> str:
    return (SKETCHES / name).read_text()


def fresh_seed() -> int:
    """A seed no earlier run used, so the shared Redis cannot already hold its render."""
    return random.randrange(10**6, 2**31 - 1)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="session")
def settings() -> EnvSettings:
    return EnvSettings(browsers=2, render_deadline_s=TEST_DEADLINE_S, recycle_after=25)


@pytest.fixture(scope="session")
async def services(settings):
    built = EnvServices.build(settings)
    await built.start()
    yield built
    await built.close()


@pytest.fixture(scope="session")
def renderer(services) -> Renderer:
    """The renderer alone, without the static gate: proves the run-time checks by themselves."""
    return services.renderer


@pytest.fixture(scope="session")
def rules():
    return load_rules()


@pytest.fixture(scope="session")
def server_url():
    port = free_port()
    env = {
        **os.environ,
        "WATERCOLOUR_PORT": str(port),
        "WATERCOLOUR_HOST": "127.0.0.1",
        "WATERCOLOUR_BROWSERS": "2",
        "WATERCOLOUR_RENDER_DEADLINE_S": str(TEST_DEADLINE_S),
        "WATERCOLOUR_JUDGE_WEIGHT": "0",
        "WATERCOLOUR_QUALITY_WEIGHT": "0",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "watercolour_env.server.app"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited: {process.stderr.read().decode()[-2000:]}")
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                break
        except httpx.TransportError:
            time.sleep(0.3)
    else:
        process.kill()
        raise RuntimeError("server did not become healthy within 60 s")
    yield url
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()

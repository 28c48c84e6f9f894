"""The local services the demo trains against: Redis (only when none answers), the heuristic scorer and
the environment with the offline judge on the bundled pool.

Each is a child process in its own process group, waited on until it answers, and ended whole when
the stack closes: the group first, then any descendant that left it (Chromium and its helpers).
Their output goes to LOG_DIR/NAME.log.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

import httpx
import psutil
import redis

ROOT = Path(__file__).resolve().parents[2]
POOL = ROOT / "services" / "env" / "watercolour_env" / "data" / "pool"
SHARED_REDIS = "redis://127.0.0.1:6379/0"
NO_REDIS = "redis://127.0.0.1:1/0"  # nothing listens there: the services run without a cache
READY_TIMEOUT_S = 120.0
# Every rollout is judged against the whole bundled pool (8 paintings), not a draw of it: a step's reward
# then moves with the policy, not with which references the step's seed happened to pick.
JUDGE_MIX = {"love": 4, "okay": 2, "meh": 2}
REFERENCES = sum(JUDGE_MIX.values())


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def redis_answers(url: str) -> bool:
    try:
        return bool(redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1).ping())
    except (redis.RedisError, OSError):
        return False


class LocalStack:
    def __init__(self, log_dir: Path, browsers: int = 2):
        self.log_dir = Path(log_dir)
        self.browsers = browsers
        self.processes: dict[str, subprocess.Popen] = {}
        self.redis_url = NO_REDIS
        self.scorer_url = self.env_url = ""

    def __enter__(self) -> LocalStack:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *_) -> None:
        self.stop()

    def start(self) -> None:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.redis_url = self._redis()
        port = free_port()
        self.scorer_url = self._launch(
            "scorer",
            [sys.executable, "-m", "watercolour_scorer.server"],
            {
                "WATERCOLOUR_SCORER_BACKEND": "heuristic",
                "WATERCOLOUR_SCORER_HOST": "127.0.0.1",
                "WATERCOLOUR_SCORER_PORT": str(port),
            },
            lambda: _health(f"http://127.0.0.1:{port}", lambda body: body.get("ready", True)),
        )
        port = free_port()
        self.env_url = self._launch(
            "env",
            [sys.executable, "-m", "watercolour_env.server.app"],
            {
                "WATERCOLOUR_JUDGE": "offline",
                "WATERCOLOUR_POOL_PATH": str(POOL),
                "WATERCOLOUR_JUDGE_MIX": json.dumps(JUDGE_MIX),
                "WATERCOLOUR_JUDGE_REFERENCES": str(REFERENCES),
                "WATERCOLOUR_SCORER_URL": self.scorer_url,
                "WATERCOLOUR_BROWSERS": str(self.browsers),
                "WATERCOLOUR_HOST": "127.0.0.1",
                "WATERCOLOUR_PORT": str(port),
            },
            lambda: _health(f"http://127.0.0.1:{port}", lambda body: all(body.get("terms_reachable", {}).values())),
        )

    def _redis(self) -> str:
        if redis_answers(SHARED_REDIS):
            return SHARED_REDIS
        if shutil.which("redis-server") is None:
            return NO_REDIS
        port = free_port()
        command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        url = f"redis://127.0.0.1:{port}/0"
        return self._launch("redis", command, {}, lambda: url if redis_answers(url) else None)

    def _launch(self, name: str, command: list[str], settings: dict[str, str], ready: Callable[[], str | None]) -> str:
        """Start `command`; return what `ready` returns once it returns something."""
        log = (self.log_dir / f"{name}.log").open("wb")
        env = {**os.environ, "REDIS_URL": self.redis_url, **settings}
        process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, cwd=ROOT)
        self.processes[name] = process
        deadline = time.monotonic() + READY_TIMEOUT_S
        while (answer := ready()) is None:
            if process.poll() is not None:
                raise RuntimeError(f"the {name} service exited with {process.returncode}: see {log.name}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the {name} service was not ready within {READY_TIMEOUT_S:.0f} s: see {log.name}")
            time.sleep(0.3)
        return answer

    def stop(self) -> None:
        """End every service, the last started first, with every process it started."""
        for name in reversed(list(self.processes)):
            end_process_tree(self.processes.pop(name))

    def pids(self) -> list[int]:
        return [process.pid for process in self.processes.values()]


def end_process_tree(process: subprocess.Popen, grace_s: float = 15.0) -> None:
    """SIGTERM to the process group (a clean shutdown closes its browsers), SIGKILL for what outlives the grace."""
    try:
        tree = psutil.Process(process.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        tree = []
    with suppress(ProcessLookupError, psutil.NoSuchProcess):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        with suppress(ProcessLookupError, psutil.NoSuchProcess):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    _, alive = psutil.wait_procs(tree, timeout=5)
    for leftover in alive:
        with suppress(ProcessLookupError, psutil.NoSuchProcess):
            leftover.kill()


def _health(url: str, ready: Callable[[dict], bool]) -> str | None:
    """`url` once its /health answers 200 and the answer says it is ready."""
    try:
        response = httpx.get(f"{url}/health", timeout=5)
    except httpx.TransportError:
        return None
    return url if response.status_code == 200 and ready(response.json()) else None

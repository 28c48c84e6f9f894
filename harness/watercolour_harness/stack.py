"""The local services the demo trains against and the benches measure through: Redis (only when none answers),
the heuristic scorer and the environment with the offline judge on the bundled pool. Their output goes to
LOG_DIR/NAME.log; closing the stack ends every process it started."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import redis

from watercolour_harness.processes import end_process_tree, free_port, ready, start, wait_until

ROOT = Path(__file__).resolve().parents[2]
POOL = ROOT / "services" / "env" / "watercolour_env" / "data" / "pool"
SHARED_REDIS = "redis://127.0.0.1:6379/0"
NO_REDIS = "redis://127.0.0.1:1/0"  # nothing listens there: the services run without a cache
READY_TIMEOUT_S = 120.0
# Every rollout is judged against the whole bundled pool (8 paintings), not a draw of it: a step's reward
# then moves with the policy, not with which references the step's seed happened to pick.
JUDGE_TIER_MIX = {"love": 4, "okay": 2, "meh": 2}
REFERENCES = sum(JUDGE_TIER_MIX.values())


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
        self.redis_url = self._redis()
        port = free_port()
        scorer = {"BACKEND": "heuristic", "HOST": "127.0.0.1", "PORT": str(port)}
        self.scorer_url = self._launch(
            "scorer",
            [sys.executable, "-m", "watercolour_scorer.server"],
            {f"WATERCOLOUR_SCORER_{name}": value for name, value in scorer.items()},
            lambda: ready(f"http://127.0.0.1:{port}"),
        )
        port = free_port()
        env = {
            "JUDGE": "offline",
            "POOL_PATH": str(POOL),
            "JUDGE_TIER_MIX": json.dumps(JUDGE_TIER_MIX),
            "JUDGE_REFERENCES": str(REFERENCES),
            "SCORER_URL": self.scorer_url,
            "BROWSERS": str(self.browsers),
            "HOST": "127.0.0.1",
            "PORT": str(port),
        }
        self.env_url = self._launch(
            "env",
            [sys.executable, "-m", "watercolour_env.server.app"],
            {f"WATERCOLOUR_{name}": value for name, value in env.items()},
            lambda: ready(f"http://127.0.0.1:{port}"),
        )

    def _redis(self) -> str:
        if redis_answers(SHARED_REDIS):
            return SHARED_REDIS
        if shutil.which("redis-server") is None:
            return NO_REDIS
        port = free_port()
        url = f"redis://127.0.0.1:{port}/0"
        command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        return self._launch("redis", command, {}, lambda: url if redis_answers(url) else None)

    def _launch(self, name: str, command: list[str], settings: dict[str, str], ready) -> str:
        log = self.log_dir / f"{name}.log"
        process = start(command, log, {**os.environ, "REDIS_URL": self.redis_url, **settings}, ROOT)
        self.processes[name] = process
        return wait_until(process, f"the {name} service", ready, READY_TIMEOUT_S, log)

    def stop(self) -> None:
        """End every service, the last started first, with every process it started."""
        for name in reversed(list(self.processes)):
            end_process_tree(self.processes.pop(name))

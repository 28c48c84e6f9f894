"""Child processes the demo owns: each in its own process group, started with its output in a log file,
waited on until it answers, and ended whole (the group, then any descendant that left it)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import TypeVar

import httpx
import psutil

Answer = TypeVar("Answer")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start(command: list[str], log: Path, env: dict[str, str], cwd: Path) -> subprocess.Popen:
    """`command` in a new process group: Ctrl-C in the terminal reaches the demo alone, which ends it."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as out:
        return subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=cwd, start_new_session=True)


def wait_until(process: subprocess.Popen, name: str, ready: Callable[[], Answer | None], timeout_s: float) -> Answer:
    """What `ready` returns once it returns something; raises if the process exits or time runs out."""
    deadline = time.monotonic() + timeout_s
    while (answer := ready()) is None:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with {process.returncode}: see its log")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{name} was not ready within {timeout_s:.0f} s: see its log")
        time.sleep(0.3)
    return answer


def ready(url: str) -> str | None:
    """`url` once its GET /ready answers 200: the service can answer every term its defaults weigh."""
    try:
        return url if httpx.get(f"{url}/ready", timeout=30).status_code == 200 else None
    except httpx.TransportError:  # nothing listening yet
        return None


def end_process_tree(process: subprocess.Popen, grace_s: float = 15.0) -> None:
    """SIGTERM to the process group (a clean shutdown closes its browsers), SIGKILL for what outlives the grace."""
    try:
        tree = psutil.Process(process.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        tree = []
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    _, alive = psutil.wait_procs(tree, timeout=5)
    for leftover in alive:
        with suppress(psutil.NoSuchProcess):
            leftover.kill()

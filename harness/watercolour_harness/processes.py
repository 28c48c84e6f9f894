"""Child processes a test, a bench or the demo owns: each in its own process group, started with its output in a
log file, waited on until it answers, and ended whole (the group, then any descendant that left it). The one way
this repository starts a service and waits until it is ready."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TypeVar

import httpx
import psutil

Answer = TypeVar("Answer")


def free_port() -> int:
    """A loopback port nothing listens on now: for a service to take, or for a URL where nothing answers."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start(command: list[str], log: Path, env: dict[str, str], cwd: Path | None = None) -> subprocess.Popen:
    """`command` in a new process group: Ctrl-C in the terminal reaches its owner alone, which ends it."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as out:
        return subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=cwd, start_new_session=True)


def wait_until(
    process: subprocess.Popen, name: str, ready: Callable[[], Answer | None], timeout_s: float, log: Path | None = None
) -> Answer:
    """What `ready` returns once it returns something; raises if the process exits or time runs out, quoting the
    end of `log` where given."""
    deadline = time.monotonic() + timeout_s
    while (answer := ready()) is None:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with {process.returncode}{_log_end(log)}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{name} was not ready within {timeout_s:.0f} s{_log_end(log)}")
        time.sleep(0.3)
    return answer


def _log_end(log: Path | None) -> str:
    if log is None or not log.exists():
        return ": see its log"
    return f"; its log ({log}) ends:\n{log.read_text(errors='replace')[-4000:]}"


def answered(url: str, timeout_s: float = 30) -> httpx.Response | None:
    """GET `url`'s answer once it is a 200; None while nothing listens there or it answers anything else."""
    try:
        answer = httpx.get(url, timeout=timeout_s)
    except httpx.TransportError:  # nothing listening yet
        return None
    return answer if answer.status_code == 200 else None


def ready(url: str, path: str = "/ready", timeout_s: float = 30) -> str | None:
    """`url` once its GET `path` answers 200 (/ready: the service can answer every term its defaults weigh)."""
    return url if answered(f"{url}{path}", timeout_s) is not None else None


@contextmanager
def running(
    name: str, command: list[str], log: Path, env: dict[str, str], ready: Callable[[], Answer | None], timeout_s: float
) -> Iterator[Answer]:
    """`command` started, waited on until `ready` answers (that answer is yielded), and ended whole on leaving."""
    process = start(command, log, env)
    try:
        yield wait_until(process, name, ready, timeout_s, log)
    finally:
        end_process_tree(process)


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

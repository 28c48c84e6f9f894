"""A deadline for a test block that may spin in C (a regex, a JSON decode): both check for signals, so SIGALRM
stops them where asyncio.wait_for or a thread's join could not. And the linear-time check built on it."""

from __future__ import annotations

import signal
import time
from contextlib import contextmanager


class DeadlinePassed(BaseException):
    """Not an Exception: code that survives any failure of a remote call (`except Exception`) cannot swallow it."""


@contextmanager
def deadline(seconds: float):
    """Fails the test when the block runs past `seconds`, and again every second after, until it ends (main
    thread only)."""

    def expire(*_):
        raise DeadlinePassed(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def assert_linear(work, small, large) -> None:
    """`work(large)`, on four times `small`'s input, takes under a second and about four times as long as
    `work(small)` (a quadratic reading takes sixteen): the best of three, loosely, for a loaded machine."""

    def seconds(text) -> float:
        started = time.perf_counter()
        work(text)
        return time.perf_counter() - started

    with deadline(30):
        took_small = min(seconds(small) for _ in range(3))
        took_large = min(seconds(large) for _ in range(3))
    assert took_large < 1.0, took_large
    assert took_large < 8 * took_small + 0.05, (took_small, took_large)

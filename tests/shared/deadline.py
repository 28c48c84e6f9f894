"""A deadline for a test block that may spin in C (a regex, a JSON decode): both check for signals, so SIGALRM
stops them where asyncio.wait_for or a thread's join could not."""

from __future__ import annotations

import signal
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

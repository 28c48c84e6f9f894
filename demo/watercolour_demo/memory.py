"""The demo's peak memory: the proportional set size (PSS) of the demo and every process under it, summed,
sampled in the background. PSS shares each shared page among the processes that map it, so Chromium's
many processes are not counted many times over, as a sum of their resident sizes would."""

from __future__ import annotations

import contextlib
import threading

import psutil


class PeakMemory:
    def __init__(self, every_s: float = 1.0):
        self.every_s = every_s
        self.peak_bytes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="peak-memory", daemon=True)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *_) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        me = psutil.Process()
        while not self._stop.is_set():
            self.peak_bytes = max(self.peak_bytes, tree_pss(me))
            self._stop.wait(self.every_s)


def tree_pss(root: psutil.Process) -> int:
    total = 0
    for process in [root, *root.children(recursive=True)]:
        with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            total += process.memory_full_info().pss
    return total

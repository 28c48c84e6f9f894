"""Python's cyclic garbage collector, paused while the gate walks a tree.

The walk makes an object or two per syntax node and frees them all at the end.
Meanwhile the collector, woken every 700 allocations, rescans them, and in the
server the whole heap with them: on the deepest sketch the limit allows, half
of the gate's time. Reference counting still frees everything as usual. Gates
run in several threads at once, so the collector resumes when the last one ends.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_paused = 0
_was_enabled = False


@contextmanager
def collector_paused() -> Iterator[None]:
    global _paused, _was_enabled
    with _lock:
        if _paused == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _paused += 1
    try:
        yield
    finally:
        with _lock:
            _paused -= 1
            if _paused == 0 and _was_enabled:
                gc.enable()

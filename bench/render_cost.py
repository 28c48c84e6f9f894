"""Where a render's time and CPU go: core-seconds by Chromium process kind, and a trace of one render.

Used by bench/webgl_bench.py. CPU is read two ways: the whole machine's busy time (everything a
render costs, a page's short-lived renderer process included) and, by kind, the processes that live
under this one (the Playwright driver, each browser, its GPU process).
"""

from __future__ import annotations

import collections
import json

import psutil

# Trace categories for a render's threads and the page's JavaScript samples.
TRACE_CATEGORIES = ["disabled-by-default-v8.cpu_profiler", "v8", "toplevel", "gpu", "blink", "cc", "viz", "__metadata"]


def _kind(process: psutil.Process) -> str:
    if process.name().startswith("node"):
        return "playwright-driver"
    arguments = process.cmdline()
    for arg in arguments:
        if arg.startswith("--type="):
            return arg.removeprefix("--type=")
    return "browser" if any(arg.startswith("--watercolour-browser=") for arg in arguments) else process.name()


def cpu_by_kind() -> collections.Counter:
    """User + system seconds of this process ("python") and of each live descendant, summed by kind."""
    me = psutil.Process()
    spent = collections.Counter()
    times = me.cpu_times()
    spent["python"] += times.user + times.system
    for process in me.children(recursive=True):
        try:
            times = process.cpu_times()
            spent[_kind(process)] += times.user + times.system
        except psutil.Error:
            continue
    return spent


class CpuWindow:
    """CPU spent between `start()` and `stop()`: the machine's, and by process kind."""

    @staticmethod
    def _machine_busy() -> float:
        times = psutil.cpu_times()
        return times.user + times.system

    def start(self) -> CpuWindow:
        self._machine, self._kinds = self._machine_busy(), cpu_by_kind()
        return self

    def stop(self) -> dict:
        kinds = cpu_by_kind()
        by_kind = {kind: round(kinds[kind] - self._kinds.get(kind, 0.0), 2) for kind in kinds}
        return {
            "machine_core_s": round(self._machine_busy() - self._machine, 2),
            "by_process_core_s": {kind: spent for kind, spent in sorted(by_kind.items()) if spent > 0},
        }


def summarise_trace(raw: bytes, top: int = 12) -> dict:
    """Busy milliseconds of the busiest threads and the page's JavaScript self time by function."""
    events = json.loads(raw)
    events = events["traceEvents"] if isinstance(events, dict) else events
    process_names, thread_names = {}, {}
    for event in events:
        if event.get("ph") == "M" and event["name"] == "process_name":
            process_names[event["pid"]] = event["args"]["name"]
        elif event.get("ph") == "M" and event["name"] == "thread_name":
            thread_names[(event["pid"], event["tid"])] = event["args"]["name"]
    slices = collections.defaultdict(list)
    for event in events:
        if event.get("ph") == "X" and "dur" in event:
            slices[(event["pid"], event["tid"])].append((event["ts"], event["dur"]))
    busy = {}
    for thread, spans in slices.items():
        total, end = 0, -1
        for start, duration in sorted(spans):  # outermost slices only: nested ones are inside them
            if start >= end:
                total, end = total + duration, start + duration
        busy[f"{process_names.get(thread[0], '?')}/{thread_names.get(thread, '?')}"] = total
    return {
        "thread_busy_ms": {name: round(us / 1000, 1) for name, us in sorted(busy.items(), key=lambda kv: -kv[1])[:top]},
        "js_self_ms": _js_self_time(events, top),
    }


def _js_self_time(events: list[dict], top: int) -> dict:
    frames, spent = {}, collections.Counter()
    for event in events:
        if event.get("name") not in ("Profile", "ProfileChunk"):
            continue
        data = event["args"]["data"]
        profile = data.get("cpuProfile", {})
        for node in profile.get("nodes", []):
            frames[(event["pid"], event["id"], node["id"])] = node["callFrame"]
        for sample, delta_us in zip(profile.get("samples", []), data.get("timeDeltas", []), strict=True):
            frame = frames.get((event["pid"], event["id"], sample))
            if frame is None:
                continue
            where = frame.get("url", "").rsplit("/", 1)[-1]
            spent[f"{frame['functionName'] or '(anonymous)'} {where}:{frame.get('columnNumber', 0)}".strip()] += delta_us
    return {name: round(us / 1000, 1) for name, us in spent.most_common(top)}

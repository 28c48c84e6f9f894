"""The WebGL benchmark's trace summary: nested slices counted once, JavaScript samples by function."""

import importlib.util
import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
spec = importlib.util.spec_from_file_location("render_cost", BENCH / "render_cost.py")
render_cost = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = render_cost  # its dataclass looks itself up there
spec.loader.exec_module(render_cost)


def test_busy_time_counts_nested_slices_once_and_samples_go_to_their_function():
    names = [
        {"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "Renderer"}},
        {"ph": "M", "name": "thread_name", "pid": 1, "tid": 7, "args": {"name": "CrRendererMain"}},
    ]
    slices = [  # a 10 ms task holding a 4 ms call, then a 3 ms task
        {"ph": "X", "name": "RunTask", "pid": 1, "tid": 7, "ts": 0, "dur": 10_000},
        {"ph": "X", "name": "v8.callFunction", "pid": 1, "tid": 7, "ts": 2_000, "dur": 4_000},
        {"ph": "X", "name": "RunTask", "pid": 1, "tid": 7, "ts": 20_000, "dur": 3_000},
    ]
    nodes = [
        {"id": 1, "callFrame": {"functionName": "", "url": "", "columnNumber": 0}},
        {"id": 2, "callFrame": {"functionName": "grow", "url": "http://x/lib/p5.brush.js", "columnNumber": 56508}},
    ]
    profile = {
        "ph": "P",
        "name": "ProfileChunk",
        "pid": 1,
        "id": "0x1",
        "args": {"data": {"cpuProfile": {"nodes": nodes, "samples": [2, 2, 1]}, "timeDeltas": [500, 700, 300]}},
    }
    summary = render_cost.summarise_trace(json.dumps({"traceEvents": [*names, *slices, profile]}).encode())
    assert summary["thread_busy_ms"] == {"Renderer/CrRendererMain": 13.0}
    assert summary["js_self_ms"] == {"grow p5.brush.js:56508": 1.2, "(anonymous) :0": 0.3}

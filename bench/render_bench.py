"""Render benchmark: prints one JSON document and writes it under bench/results/.

Measures, for a small and a ~150-line sketch: cold and warm render latency,
the share of a render that is ours (page, libraries, transfer) rather than the
sketch's own drawing and readback, a GRPO group of 8 rendered together against
8 one after another, cache-hit latency, and the recipe's Chromium GL flags
against ours.

    python bench/render_bench.py [--warm N] [--skip-flag-comparison]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path

from watercolour_env.services import EnvServices
from watercolour_env.settings import EnvSettings
from watercolour_harness import record

BENCH_DIR = Path(__file__).resolve().parent
POOL_SOURCES = BENCH_DIR.parent / "services" / "env" / "watercolour_env" / "data" / "pool" / "sources"
SKETCHES = {"small": POOL_SOURCES / "peach-bloom-small.js", "hibiscus_150": POOL_SOURCES / "peach-hibiscus-b.js"}
GROUP = 8


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)


async def latency(services: EnvServices, code: str, warm: int) -> dict:
    renderer = services.renderer
    cold = await renderer.render(code, seed=1)
    assert cold.status == "passed", cold.violations
    runs = [await renderer.render(code, seed=100 + i) for i in range(warm)]
    totals = [r.timings.total_ms for r in runs]
    overhead = [r.timings.overhead_ms / r.timings.total_ms for r in runs]
    return {
        "lines": code.count("\n") + 1,
        "cold_ms": round(cold.timings.total_ms, 1),
        "warm_ms_p50": pct(totals, 0.5),
        "warm_ms_max": round(max(totals), 1),
        "load_ms_p50": pct([r.timings.load_ms for r in runs], 0.5),
        "draw_ms_p50": pct([r.timings.draw_ms for r in runs], 0.5),
        "readback_ms_p50": pct([r.timings.readback_ms for r in runs], 0.5),
        "our_share_p50": round(statistics.median(overhead), 3),
    }


async def group_throughput(services: EnvServices, code: str) -> dict:
    renderer = services.renderer
    started = time.perf_counter()
    for i in range(GROUP):
        await renderer.render(code, seed=200 + i)
    sequential_s = time.perf_counter() - started
    started = time.perf_counter()
    results = await asyncio.gather(*(renderer.render(code, seed=300 + i) for i in range(GROUP)))
    batch_s = time.perf_counter() - started
    assert all(r.status == "passed" for r in results)
    return {
        "group": GROUP,
        "browsers": renderer.browsers.size,
        "sequential_s": round(sequential_s, 2),
        "batch_s": round(batch_s, 2),
        "speedup": round(sequential_s / batch_s, 2),
    }


async def cache_hits(services: EnvServices, code: str, repeats: int = 50) -> dict:
    await services.pipeline.run(code, seed=999)
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        result = await services.pipeline.run(code, seed=999)
        times.append((time.perf_counter() - started) * 1000)
        assert result.cached
    return {"repeats": repeats, "p50_ms": pct(times, 0.5), "p95_ms": pct(times, 0.95)}


async def with_services(settings: EnvSettings, work):
    services = EnvServices.build(settings)
    await services.start()
    try:
        return await work(services)
    finally:
        await services.close()


async def flag_comparison(code: str) -> dict:
    """One browser each, the same sketch: our CPU GL paths (llvmpipe, which auto takes here, and SwiftShader's)
    against the recipe's."""
    out = {}
    for gl in ("llvmpipe", "software", "angle-swiftshader"):
        settings = EnvSettings(browsers=1, chromium_gl=gl, render_deadline_s=300)

        async def measure(services, gl=gl):
            cold = await services.renderer.render(code, seed=1)
            warm = await services.renderer.render(code, seed=2)
            milliseconds = {"cold_ms": cold.timings.total_ms, "warm_ms": warm.timings.total_ms}
            return {"status": warm.status, **{k: round(v, 1) for k, v in milliseconds.items()}}

        out[gl] = await with_services(settings, measure)
    return out


async def main(args) -> dict:
    codes = {name: path.read_text() for name, path in SKETCHES.items()}
    settings = EnvSettings()

    async def core(services):
        return {
            "latency": {name: await latency(services, code, args.warm) for name, code in codes.items()},
            "group_of_8": {name: await group_throughput(services, code) for name, code in codes.items()},
            "cache_hit": await cache_hits(services, codes["hibiscus_150"]),
            "renderer": services.renderer.version,
            "network_isolated": services.renderer.browsers.network_isolated,
        }

    report = {
        **record.header("render"),
        **await with_services(settings, core),
    }
    if not args.skip_flag_comparison:
        report["gl_flags_hibiscus_150"] = await flag_comparison(codes["hibiscus_150"])
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--warm", type=int, default=5, help="warm renders per sketch")
    parser.add_argument("--skip-flag-comparison", action="store_true")
    parser.add_argument("--out", type=Path, default=BENCH_DIR / "results")
    arguments = parser.parse_args()
    record.write(asyncio.run(main(arguments)), folder=arguments.out)

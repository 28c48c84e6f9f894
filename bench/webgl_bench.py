"""WebGL back ends on a GPU host: prints one JSON document and writes it under bench/results/.

For each back end (`--modes`, e.g. gpu-vulkan,software) and pool size (`--browsers`, e.g. 1,4,8),
through the project's own renderer and the /evaluate code path (EnvServices.evaluate_group, gate
and length terms): one sketch at a time (the ~150-line sketch and a small one), a group of 8 of the
150-line sketch, and with 8 browsers or more (or the largest pool) a group of 32; GPU memory per
browser (nvidia-smi); the CPU each costs (the machine's core-seconds, and by Chromium process kind).
A group's replies are the same sketch with a different comment each, as a GRPO group's differ: the
pipeline draws identical sketches in flight once, and the same reply 8 times would measure one render.
`--profile` traces one render of the first mode (busiest threads, JavaScript self time by function);
`--colocated` measures, for each mode at the largest pool, what rendering costs a GPU job beside it
(bench/gpu_load.py's bf16 matmuls, alone and while groups of 32 render): a GPU mode shares the GPU's
time, and every mode shares the host's cores. Then the pictures: every project sketch drawn by the first mode
against the last (the gate's verdict and the share of pixels that differ by more than the paint
threshold) and by the first mode twice.

    python bench/webgl_bench.py --modes gpu-vulkan,software --browsers 1,4,8 --profile --colocated

Without a GPU it compares the CPU paths: `--modes llvmpipe,software --browsers 2`.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import io
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image
from render_cost import TRACE_CATEGORIES, CpuWindow, summarise_trace

from watercolour_env.services import EnvServices
from watercolour_env.settings import EnvSettings
from watercolour_harness import record
from watercolour_shared.paint import PAINT_DISTANCE
from watercolour_shared.render_wire import EpisodeOptions
from watercolour_shared.reward import MixWeights

BENCH_DIR = Path(__file__).resolve().parent
SOURCES = BENCH_DIR.parent / "services" / "env" / "watercolour_env" / "data" / "pool" / "sources"
LONG, SMALL = (SOURCES / "peach-hibiscus-b.js").read_text(), (SOURCES / "peach-bloom-small.js").read_text()
GATE_AND_LENGTH = EpisodeOptions(weights=MixWeights(gate=0.5, length=0.5, judge=0, hps=0))


def gpu_memory_mb() -> float | None:
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"], capture_output=True, text=True
        )
    except FileNotFoundError:
        return None
    return float(out.stdout.split()[0]) if out.returncode == 0 and out.stdout.strip() else None


def replies(size: int, tag: str) -> list[str]:
    """`size` different replies that draw the same picture (only a comment differs)."""
    return [f"{LONG}\n// rollout {tag}-{i}\n" for i in range(size)]


async def one_at_a_time(services: EnvServices, code: str, runs: int = 3) -> dict:
    rows = []
    for i in range(runs):
        cpu = CpuWindow().start()
        result = await services.renderer.render(code, seed=10 + i)
        rows.append((result, cpu.stop()))
    assert all(r.status == "passed" for r, _ in rows), [r.violations for r, _ in rows]
    return {
        "total_s": [round(r.timings.total_ms / 1000, 2) for r, _ in rows],
        "load_s": [round(r.timings.load_ms / 1000, 2) for r, _ in rows],
        "draw_s": [round(r.timings.draw_ms / 1000, 2) for r, _ in rows],
        "cpu": [spent for _, spent in rows],
    }


async def group(services: EnvServices, size: int, tag: str) -> dict:
    cpu = CpuWindow().start()
    started = time.perf_counter()
    evaluations = await services.evaluate_group(replies(size, tag), 7, GATE_AND_LENGTH)
    wall = time.perf_counter() - started
    spent = cpu.stop()
    draws = sorted(e.render.timings.draw_ms / 1000 for e in evaluations)
    return {
        "size": size,
        "wall_s": round(wall, 2),
        "passed": sum(e.render.status == "passed" for e in evaluations),
        "draw_s": {"min": round(draws[0], 2), "median": round(draws[len(draws) // 2], 2), "max": round(draws[-1], 2)},
        "cores_busy": round(spent["machine_core_s"] / wall, 1),
        "cpu": spent,
    }


def settings_for(mode: str, browsers: int, assets: Path | None) -> EnvSettings:
    return EnvSettings(chromium_gl=mode, browsers=browsers, **({"assets_dir": assets} if assets else {}))


async def measure(mode: str, browsers: int, assets: Path | None) -> dict:
    before = gpu_memory_mb()
    services = EnvServices.build(settings_for(mode, browsers, assets), use_cache=False)
    await services.start()
    try:
        row = {"mode": mode, "browsers": browsers, "webgl_renderer": services.renderer.browsers.webgl.renderer}
        row["hibiscus_150"] = await one_at_a_time(services, LONG)
        row["small"] = await one_at_a_time(services, SMALL)
        print(f"{mode} x{browsers}: one at a time {row['hibiscus_150']['total_s']}", file=sys.stderr, flush=True)
        await group(services, 8, "warm")  # every browser has drawn once
        row["group_8"] = await group(services, 8, "a")
        if browsers >= 8 or browsers == max(ARGS.browsers):
            row["group_32"] = await group(services, 32, "b")
        after = gpu_memory_mb()
        if before is not None and after is not None:
            row["gpu_memory_mb_per_browser"] = round((after - before) / browsers, 1)
    finally:
        await services.close()
    return row


async def profile(mode: str, assets: Path | None) -> dict:
    """One render of the 150-line sketch traced in its browser: where its threads and its JavaScript spend time."""
    services = EnvServices.build(settings_for(mode, 1, assets), use_cache=False)
    await services.start()
    try:
        await services.renderer.render(LONG, seed=1)
        (browser,) = services.renderer.browsers.browsers()
        await browser.start_tracing(categories=TRACE_CATEGORIES)
        result = await services.renderer.render(LONG, seed=2)
        summary = summarise_trace(await browser.stop_tracing())
    finally:
        await services.close()
    return {"mode": mode, "draw_s": round(result.timings.draw_ms / 1000, 2), **summary}


async def colocated(mode: str, browsers: int, assets: Path | None, seconds: float = 20) -> dict:
    """bench/gpu_load.py's throughput alone, then while groups of 32 render; the groups' times beside it."""
    alone = await gpu_load(seconds / 2)
    services = EnvServices.build(settings_for(mode, browsers, assets), use_cache=False)
    await services.start()
    try:
        await group(services, browsers, "warm")
        load = asyncio.create_task(gpu_load(seconds))
        await asyncio.sleep(3)  # the load is up to speed before the first group
        groups = []
        while not load.done():
            groups.append(await group(services, 32, f"beside-{len(groups)}"))
        beside = await load
    finally:
        await services.close()
    return {
        "mode": mode,
        "browsers": browsers,
        "gpu_load_tflops_alone": alone,
        "gpu_load_tflops_while_rendering": beside,
        "group_32_wall_s_beside_the_load": [g["wall_s"] for g in groups],
    }


async def gpu_load(seconds: float) -> float:
    """Median bf16 matmul TFLOP/s of bench/gpu_load.py over `seconds`, in its own process (as a trainer is)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(BENCH_DIR / "gpu_load.py"), str(seconds), stdout=asyncio.subprocess.PIPE
    )
    out, _ = await process.communicate()
    rates = sorted(json.loads(line)["tflops"] for line in out.decode().splitlines()[1:])  # the first second warms up
    return round(rates[len(rates) // 2], 1)


async def pictures(modes: list[str], assets: Path | None) -> list[dict]:
    async def draw(mode: str) -> dict:
        services = EnvServices.build(settings_for(mode, 4, assets), use_cache=False)
        await services.start()
        try:
            return {path.name: await services.pipeline.run(path.read_text(), seed=1) for path in sorted(SOURCES.glob("*.js"))}
        finally:
            await services.close()

    first, again, last = await draw(modes[0]), await draw(modes[0]), await draw(modes[-1])
    return [
        {
            "sketch": name,
            "status": {modes[0]: first[name].status, modes[-1]: last[name].status},
            f"{modes[0]}_vs_{modes[-1]}": difference(first[name].png_base64, last[name].png_base64),
            f"{modes[0]}_twice": difference(first[name].png_base64, again[name].png_base64),
        }
        for name in first
    ]


def difference(a: str | None, b: str | None) -> dict | None:
    if a is None or b is None:
        return None
    pa, pb = (np.asarray(Image.open(io.BytesIO(base64.b64decode(x))).convert("RGB"), dtype=np.int32) for x in (a, b))
    distance = np.sqrt(((pa - pb) ** 2).sum(axis=2))
    return {
        "pixels_differing": int((distance > 0).sum()),
        "share_beyond_paint_threshold": round(float((distance > PAINT_DISTANCE).mean()), 5),
        "mean_abs": round(float(np.abs(pa - pb).mean()), 3),
    }


async def main() -> None:
    rows = []
    for mode in ARGS.modes:
        for browsers in ARGS.browsers:
            rows.append(await measure(mode, browsers, ARGS.assets))
            print(json.dumps(rows[-1]), flush=True)  # each row as it lands: a long run that breaks keeps them
    result = {
        **record.header("webgl", gpu_memory_mb_idle=gpu_memory_mb()),
        "runs": rows,
        **({"profile": await profile(ARGS.modes[0], ARGS.assets)} if ARGS.profile else {}),
        **({"colocated": [await colocated(m, max(ARGS.browsers), ARGS.assets) for m in ARGS.modes]} if ARGS.colocated else {}),
        "pictures": await pictures(ARGS.modes, ARGS.assets),
    }
    if ARGS.out:
        print(json.dumps(result, indent=2))
        ARGS.out.write_text(json.dumps(result, indent=2) + "\n")
    else:
        record.write(result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--modes", type=lambda s: s.split(","), default=["gpu-vulkan", "software"])
    parser.add_argument("--browsers", type=lambda s: [int(n) for n in s.split(",")], default=[1, 4, 8])
    parser.add_argument("--assets", type=Path, help="node_modules holding p5 and p5.brush, if not the project's")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--profile", action="store_true", help="trace one render of the first mode")
    parser.add_argument("--colocated", action="store_true", help="measure a GPU matmul load beside the renders")
    ARGS = parser.parse_args()
    asyncio.run(main())

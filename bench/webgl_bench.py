"""WebGL back ends on a GPU host: prints one JSON document and writes it under bench/results/.

For each back end (`--modes`, e.g. gpu-vulkan,software) and pool size (`--browsers`, e.g. 1,4,8),
through the project's own renderer and the /evaluate code path (EnvServices.evaluate_group, gate
and length terms): one sketch at a time (the ~150-line sketch and a small one), a group of 8 of the
150-line sketch, and with 8 browsers or more (or the largest pool) a group of 32; GPU memory per browser (nvidia-smi).
Then the pictures: every project sketch drawn by the first mode against the last (the gate's verdict
and the share of pixels that differ by more than the paint threshold) and by the first mode twice.

    python bench/webgl_bench.py --modes gpu-vulkan,software --browsers 1,4,8
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import io
import json
import os
import platform
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from PIL import Image

from watercolour_env.services import EnvServices
from watercolour_env.settings import EnvSettings
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


async def one_at_a_time(services: EnvServices, code: str, runs: int = 3) -> dict:
    results = [await services.renderer.render(code, seed=10 + i) for i in range(runs)]
    assert all(r.status == "passed" for r in results), [r.violations for r in results]
    return {
        "total_s": [round(r.timings.total_ms / 1000, 2) for r in results],
        "draw_s": [round(r.timings.draw_ms / 1000, 2) for r in results],
    }


async def group(services: EnvServices, size: int, seed: int) -> dict:
    started = time.perf_counter()
    evaluations = await services.evaluate_group([LONG] * size, seed, GATE_AND_LENGTH)
    return {
        "size": size,
        "wall_s": round(time.perf_counter() - started, 2),
        "passed": sum(e.render.status == "passed" for e in evaluations),
    }


async def measure(mode: str, browsers: int, assets: Path | None) -> dict:
    before = gpu_memory_mb()
    settings = EnvSettings(chromium_gl=mode, browsers=browsers, **({"assets_dir": assets} if assets else {}))
    services = EnvServices.build(settings, use_cache=False)
    await services.start()
    try:
        row = {"mode": mode, "browsers": browsers, "webgl_renderer": services.renderer.browsers.webgl.renderer}
        row["hibiscus_150"] = await one_at_a_time(services, LONG)
        row["small"] = await one_at_a_time(services, SMALL)
        print(f"{mode} x{browsers}: one at a time {row['hibiscus_150']['total_s']}", file=sys.stderr, flush=True)
        await group(services, 8, seed=1)  # every browser has drawn once
        row["group_8"] = await group(services, 8, seed=2)
        if browsers >= 8 or browsers == max(ARGS.browsers):
            row["group_32"] = await group(services, 32, seed=3)
        after = gpu_memory_mb()
        if before is not None and after is not None:
            row["gpu_memory_mb_per_browser"] = round((after - before) / browsers, 1)
    finally:
        await services.close()
    return row


async def pictures(modes: list[str], assets: Path | None) -> list[dict]:
    async def draw(mode: str) -> dict:
        settings = EnvSettings(chromium_gl=mode, browsers=4, **({"assets_dir": assets} if assets else {}))
        services = EnvServices.build(settings, use_cache=False)
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
        "bench": "webgl",
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "gpu_memory_mb_idle": gpu_memory_mb()},
        "runs": rows,
        "pictures": await pictures(ARGS.modes, ARGS.assets),
    }
    text = json.dumps(result, indent=2)
    print(text)
    out = ARGS.out or BENCH_DIR / "results" / f"webgl-{datetime.now(timezone.utc):%Y-%m-%d}.json"
    out.write_text(text + "\n")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--modes", type=lambda s: s.split(","), default=["gpu-vulkan", "software"])
    parser.add_argument("--browsers", type=lambda s: [int(n) for n in s.split(",")], default=[1, 4, 8])
    parser.add_argument("--assets", type=Path, help="node_modules holding p5 and p5.brush, if not the project's")
    parser.add_argument("--out", type=Path)
    ARGS = parser.parse_args()
    asyncio.run(main())

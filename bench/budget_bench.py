"""Render budget and false rejections: prints one JSON document and writes it under bench/results/.

Every honest sketch the project has (the reference pool's sources, the example flower, and the
demo generator's output, and at its largest look) goes through the whole gate (static and rendered)
with every browser of the default pool busy, as in training. Reports the sketches refused (false
rejections), the time each spent in its page (load + draw + readback), and the deadline that
follows (twice the slowest). Then the fair-share check: the same honest group, alone and next to a
sketch that never ends.

    python bench/budget_bench.py [--generated N]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

from watercolour_env.services import EnvServices
from watercolour_env.settings import EnvSettings
from watercolour_harness import record
from watercolour_harness.sketchgen.generate import generate_sketch
from watercolour_harness.sketchgen.looks import GLAZES, WASHES, ZOOMS, Look
from watercolour_shared.subjects import DEFAULT_SUBJECT

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
POOL_SOURCES = ROOT / "services" / "env" / "watercolour_env" / "data" / "pool" / "sources"
ENDLESS = "function setup() { createCanvas(600, 600, WEBGL); noLoop(); }\nfunction draw() { while (true) {} }\n"


def honest_sketches(generated: int) -> dict[str, str]:
    sketches = {f"pool/{path.name}": path.read_text() for path in sorted(POOL_SOURCES.glob("*.js"))}
    sketches["examples/flower.js"] = (ROOT / "examples" / "flower.js").read_text()
    # Every subject kind the generator knows, each composition it draws, and the demo's own warm-start shape.
    for subject in (DEFAULT_SUBJECT, "green leaves", "tall stems", "a wild flower"):
        for seed in range(generated):
            sketches[f"generated/{subject}/{seed}"] = generate_sketch(subject, seed)
    for seed in range(generated):
        sketches[f"generated/nearest-no-wash/{seed}"] = generate_sketch(
            DEFAULT_SUBJECT, seed, paper_wash=False, look=Look(zoom=max(ZOOMS), wash=max(WASHES), glaze=max(GLAZES))
        )
    return sketches


async def through_the_gate(services: EnvServices, sketches: dict[str, str]) -> dict:
    async def one(name: str, code: str) -> dict:
        result = await services.pipeline.run(code, seed=1)
        t = result.timings
        return {
            "sketch": name,
            "status": result.status,
            "violations": [v.code.value for v in result.violations],
            "page_s": round((t.load_ms + t.draw_ms + t.readback_ms) / 1000, 2),
            "gate_ms": round(t.gate_ms, 1),
        }

    rows = await asyncio.gather(*(one(name, code) for name, code in sketches.items()))
    page_s = [row["page_s"] for row in rows if row["status"] == "passed"]
    return {
        "sketches": len(rows),
        "false_rejections": [row for row in rows if row["status"] != "passed"],
        "page_s_max": max(page_s),
        "page_s_median": sorted(page_s)[len(page_s) // 2],
        "deadline_s_from_data": round(2 * max(page_s)),
        "rows": rows,
    }


async def fair_share(services: EnvServices, sketches: list[str]) -> dict:
    async def group(extra: list[str]) -> float:
        started = time.perf_counter()
        await asyncio.gather(*(services.renderer.render(code, seed=7) for code in [*extra, *sketches]))
        return round(time.perf_counter() - started, 1)

    alone = await group([])
    started = time.perf_counter()
    hostile = asyncio.ensure_future(services.renderer.render(ENDLESS, seed=7))
    await asyncio.sleep(0.5)  # the endless sketch takes its browser first
    await group([])
    honest_done = round(time.perf_counter() - started, 1)
    await hostile
    return {"honest_group_alone_s": alone, "honest_group_beside_an_endless_sketch_s": honest_done}


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--generated", type=int, default=6, help="generated sketches per subject")
    args = parser.parse_args()
    settings = EnvSettings()
    services = EnvServices.build(settings, use_cache=False, reward_terms=False)
    await services.start()
    try:
        sketches = honest_sketches(args.generated)
        budget = await through_the_gate(services, sketches)
        share = await fair_share(services, [sketches["pool/peach-hibiscus-b.js"]] * 4)
    finally:
        await services.close()
    result = {
        **record.header("budget"),
        "browsers": settings.browsers,
        "deadline_s_setting": settings.render_deadline_s,
        **budget,
        "fair_share": share,
    }
    record.write(result)


if __name__ == "__main__":
    asyncio.run(main())

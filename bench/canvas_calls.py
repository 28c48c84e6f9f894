"""Where a watercolour sketch's drawing time goes, by the browser calls it makes: prints one JSON document and
writes it under bench/results/.

The sketches `make bench-eval` renders (the demo generator's, for the first held-out subjects), each drawn
twice in one software-GL browser: once plainly (the draw time eval pays) and once with every method of the
2D-canvas and WebGL2 contexts wrapped by an init script that counts its calls and the milliseconds they
return in. A 2D call that makes Skia draw what was queued on that canvas (p5.brush's fill masks are drawn by
`drawImage` into the texture upload) is charged the rasterising; the rest of the draw time is JavaScript
(p5.brush's geometry) and the wrappers' own cost, so `unwrapped_draw_ms` is the figure to compare.

    python bench/canvas_calls.py [--sketches N]
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from watercolour_env.render import page_run
from watercolour_env.services import EnvServices
from watercolour_env.settings import EnvSettings
from watercolour_harness import record
from watercolour_harness.sketchgen import generate_sketch
from watercolour_shared.subjects import load_subjects

BENCH_DIR = Path(__file__).resolve().parent
TOP = 8

# Counts every call of every method of the contexts p5 and p5.brush draw with; read back after the render.
COUNT_CALLS = """
window.__calls = {};
for (const [prefix, proto] of [["gl", WebGL2RenderingContext.prototype], ["2d", CanvasRenderingContext2D.prototype],
                               ["offscreen-2d", OffscreenCanvasRenderingContext2D.prototype]]) {
  for (const name of Object.getOwnPropertyNames(proto)) {
    const method = Object.getOwnPropertyDescriptor(proto, name).value;
    if (typeof method !== "function" || name === "constructor") continue;
    proto[name] = function (...args) {
      const began = performance.now();
      try { return method.apply(this, args); } finally {
        const entry = (window.__calls[`${prefix}.${name}`] ??= { calls: 0, ms: 0 });
        entry.calls += 1;
        entry.ms += performance.now() - began;
      }
    };
  }
}
"""


def counting_page_loads() -> list[dict]:
    """Makes every page the renderer loads count its calls; returns the list each render's counts are added to."""
    counted, load_and_wait = [], page_run._load_and_wait

    async def load_counting(page):
        await page.add_init_script(COUNT_CALLS)
        report = await load_and_wait(page)
        counted.append(await page.evaluate("window.__calls"))
        return report

    page_run._load_and_wait = load_counting  # a bench's instrument: the renderer itself never counts
    return counted


def breakdown(calls: dict, draw_ms: float) -> dict:
    native = sum(entry["ms"] for entry in calls.values())
    top = sorted(calls.items(), key=lambda item: -item[1]["ms"])[:TOP]
    return {
        "wrapped_draw_ms": round(draw_ms),
        "in_canvas_and_webgl_calls_ms": round(native),
        "javascript_and_wrappers_ms": round(draw_ms - native),
        "calls": sum(entry["calls"] for entry in calls.values()),
        "top": {name: {"calls": entry["calls"], "ms": round(entry["ms"], 1)} for name, entry in top},
    }


async def main(count: int) -> dict:
    subjects = load_subjects().subjects[:count]
    services = EnvServices.build(EnvSettings(browsers=1, chromium_gl="software", render_deadline_s=300), use_cache=False)
    await services.start()
    rows = []
    try:
        await services.renderer.render(generate_sketch(subjects[0], 0), seed=0)  # the browser's first page
        sketches = [(subject, generate_sketch(subject, seed)) for seed, subject in enumerate(subjects, start=1)]
        plain = [await services.renderer.render(code, seed=1) for _, code in sketches]
        counted = counting_page_loads()
        for (subject, code), first in zip(sketches, plain, strict=True):
            again = await services.renderer.render(code, seed=1)
            assert first.status == again.status == "passed", (first.violations, again.violations)
            row = {"subject": subject, "lines": code.count("\n") + 1, "unwrapped_draw_ms": round(first.timings.draw_ms)}
            rows.append(row | breakdown(counted[-1], again.timings.draw_ms))
        renderer = services.renderer.version
    finally:
        await services.close()
    return {
        **record.header("canvas-calls"),
        "renderer": renderer,
        "sketches": rows,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sketches", type=int, default=3)
    args = parser.parse_args()
    record.write(asyncio.run(main(args.sketches)))

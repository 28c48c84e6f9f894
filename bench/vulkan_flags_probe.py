"""Which gpu-vulkan flag set draws on a GPU host's Vulkan, then each WebGL mode through the environment's own code.

`flags`: each candidate flag set (CANDIDATES) launched through the project's Chromium class, the WebGL renderer
string read as the pool reads it (webgl.read_renderer), or the launch's error. `env MODE`: EnvServices.build with
WATERCOLOUR_CHROMIUM_GL=MODE (the pool, its renderer-string check, the gate and the renderer), the renderer string it
settled on, three renders each of the ~150-line sketch and the small one, and every pool sketch through the pipeline.
`all`: `flags`, then `env` for each mode in a process of its own (a software mode without the GPU's Vulkan ICD, as
bench/step_env.py runs it), one JSON document on stdout. bench/h200_env_step.sh's `probe` runs it on the GPU host:

    bash bench/h200_env_step.sh probe bench/vulkan_flags_probe.py all --out $OUT/webgl-vulkan.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from playwright.async_api import async_playwright

from watercolour_env.render import chromium as chromium_module
from watercolour_env.render.chromium import GPU_MODES, Chromium
from watercolour_env.render.webgl import read_renderer
from watercolour_env.services import EnvServices
from watercolour_env.settings import EnvSettings
from watercolour_harness import record

SOURCES = Path(__file__).resolve().parent.parent / "services" / "env" / "watercolour_env" / "data" / "pool" / "sources"
GPU = ("--ignore-gpu-blocklist", "--enable-gpu")
CANDIDATES = {
    "features-Vulkan-VulkanFromANGLE-DefaultANGLEVulkan (2026-12-02's set)": (
        "--use-angle=vulkan",
        "--enable-features=Vulkan,VulkanFromANGLE,DefaultANGLEVulkan",
        *GPU,
    ),
    "features-VulkanFromANGLE-DefaultANGLEVulkan": (
        "--use-angle=vulkan",
        "--enable-features=VulkanFromANGLE,DefaultANGLEVulkan",
        *GPU,
    ),
    "use-gl-angle + features-VulkanFromANGLE-DefaultANGLEVulkan": (
        "--use-gl=angle",
        "--use-angle=vulkan",
        "--enable-features=VulkanFromANGLE,DefaultANGLEVulkan",
        *GPU,
    ),
    "features-Vulkan-VulkanFromANGLE-DefaultANGLEVulkan + disable-vulkan-surface": (
        "--use-angle=vulkan",
        "--enable-features=Vulkan,VulkanFromANGLE,DefaultANGLEVulkan",
        "--disable-vulkan-surface",
        *GPU,
    ),
    "use-angle-vulkan alone": ("--use-angle=vulkan", *GPU),
}
GPU_ONLY_VARIABLES = ("VK_DRIVER_FILES", "VK_ICD_FILENAMES")


def executable() -> Path:
    return Path(os.environ.get("WATERCOLOUR_CHROMIUM_PATH", "/usr/bin/chromium"))


async def probe_flags() -> list[dict]:
    rows = []
    os.environ["DEBUG"] = "pw:browser"  # the browser's own stderr (a GPU process's exit code) goes to ours
    async with async_playwright() as playwright:
        for name, flags in CANDIDATES.items():
            chromium_module.GL_FLAGS["probe"] = flags
            browser = Chromium(playwright, executable(), isolate_network=False, gl="probe")
            started = time.perf_counter()
            row = {"name": name, "flags": list(flags)}
            try:
                await asyncio.wait_for(browser.launch(), 60)
                row["renderer"] = await asyncio.wait_for(read_renderer(browser.browser), 60)
            except Exception as error:  # noqa: BLE001 - what each flag set did is the point
                row["error"] = f"{type(error).__name__}: {str(error)[:300]}"
            finally:
                await browser.kill()
            row["seconds"] = round(time.perf_counter() - started, 2)
            print(json.dumps(row), file=sys.stderr, flush=True)
            rows.append(row)
    return rows


def seconds(result) -> dict:
    return {
        "status": result.status,
        "total_s": round(result.timings.total_ms / 1000, 2),
        "draw_s": round(result.timings.draw_ms / 1000, 2),
    }


async def probe_env(mode: str) -> dict:
    settings = EnvSettings(chromium_gl=mode, browsers=2)
    started = time.perf_counter()
    services = EnvServices.build(settings, use_cache=False)
    row: dict = {"mode": mode, "flags": list(chromium_module.GL_FLAGS.get(mode, ()))}
    try:
        await services.start()
    except Exception as error:  # noqa: BLE001
        row["error"] = f"{type(error).__name__}: {str(error)[:400]}"
        return row
    try:
        webgl = services.renderer.browsers.webgl
        row.update(launched_mode=webgl.mode, webgl_renderer=webgl.renderer, on_gpu=webgl.on_gpu)
        row["start_s"] = round(time.perf_counter() - started, 2)
        gpu = mode in GPU_MODES  # the others start and draw once each: they are checked, not measured
        for label, name in (("hibiscus_150", "peach-hibiscus-b.js"), ("small", "peach-bloom-small.js")):
            code = (SOURCES / name).read_text()
            row[label] = [seconds(await services.renderer.render(code, seed=10 + i)) for i in range(3 if gpu else 1)]
        if gpu:
            row["pool_sketches"] = {
                path.name: seconds(await services.pipeline.run(path.read_text(), seed=1)) for path in sorted(SOURCES.glob("*.js"))
            }
    finally:
        await services.close()
    return row


def run_all(modes: list[str]) -> dict:
    result = {
        **record.header("vulkan-flags"),
        "chromium": subprocess.run([str(executable()), "--version"], capture_output=True, text=True).stdout.strip(),
        "flag_sets": asyncio.run(probe_flags()),
        "modes": [],
    }
    for mode in modes:
        env = {name: value for name, value in os.environ.items() if name != "DEBUG"}
        if mode in ("software", "angle-swiftshader"):
            for name in GPU_ONLY_VARIABLES:
                env.pop(name, None)
        try:
            out = subprocess.run([sys.executable, __file__, "env", mode], env=env, capture_output=True, text=True, timeout=150)
            lines = out.stdout.strip().splitlines()
            row = json.loads(lines[-1]) if lines else {"mode": mode, "error": out.stderr[-600:]}
        except subprocess.TimeoutExpired:
            row = {"mode": mode, "error": "over 150 s"}
        print(json.dumps(row), file=sys.stderr, flush=True)
        result["modes"].append(row)
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=["flags", "env", "all"])
    parser.add_argument("mode", nargs="?")
    parser.add_argument("--modes", type=lambda s: s.split(","), default=["gpu-vulkan", "auto", "gpu-egl", "software"])
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.what == "flags":
        document = {"flag_sets": asyncio.run(probe_flags())}
    elif args.what == "env":
        document = asyncio.run(probe_env(args.mode))
    else:
        document = run_all(args.modes)
    text = json.dumps(document, indent=None if args.what == "env" else 2)
    print(text, flush=True)
    if args.out:
        args.out.write_text(text + "\n")

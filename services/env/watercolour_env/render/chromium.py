"""One headless Debian Chromium, launched through Playwright, that can be killed whole.

Playwright does not expose the browser's process id, so each launch carries a
unique marker switch; the process tree found by it is what the memory watchdog
measures (as growth over the idle browser, since resident sizes count shared
library pages once per process) and what `kill` ends when a sketch hangs it.
The idle size is the settled one: right after launch Chromium is still starting
its GPU and utility processes (168-558 MB seen, settling near 560), and growth
measured from a sample taken then failed an honest sketch in some browsers only.

Playwright talks to Chromium over a pipe, so where the machine allows it the
browser runs in an empty network namespace: no socket it opens can reach
anything, whatever the page tries (request routing alone still let Chromium
open a bare TCP connection before a blocked navigation).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
import subprocess
import tempfile
import uuid
from functools import cache
from pathlib import Path

import psutil
from playwright.async_api import Browser, Playwright

log = logging.getLogger(__name__)

# How WebGL is drawn. Without a GPU: "llvmpipe" is ANGLE on Mesa's EGL, whose
# llvmpipe rasteriser runs p5.brush's blend shader in about half the CPU time of
# SwiftShader; the 2D canvas stays in Skia's software raster (drawn through
# llvmpipe too, 8 renders took about 7 times as long). "software" is headless Chromium's
# default path with --disable-gpu (SwiftShader), where Mesa is missing;
# "angle-swiftshader" is the recipe's flag set, kept for comparison
# (bench/render_bench.py measures it). With one: ANGLE on the
# driver's Vulkan, or on its EGL (webgl.py checks which really draws). gpu-vulkan
# enables ANGLE's Vulkan back end alone, not the `Vulkan` feature (Vulkan for
# Chromium's own compositing too): with that feature Chromium 156 crashed its
# GPU process on an H200 host (exit code 11), without it WebGL drew on the
# H200's Vulkan (bench/results/webgl-h200-2026-12-03-vulkan.json).
_GPU = ("--ignore-gpu-blocklist", "--enable-gpu")
GL_FLAGS = {
    "software": ("--disable-gpu",),
    "llvmpipe": (
        "--use-gl=angle",
        "--use-angle=gl-egl",
        *_GPU,
        "--disable-accelerated-2d-canvas",
        "--disable-gpu-rasterization",
    ),
    "angle-swiftshader": ("--use-gl=angle", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"),
    "gpu-vulkan": ("--use-angle=vulkan", "--enable-features=VulkanFromANGLE,DefaultANGLEVulkan", *_GPU),
    "gpu-egl": ("--use-gl=angle", "--use-angle=gl-egl", *_GPU),
}
GPU_MODES = ("gpu-vulkan", "gpu-egl")  # in the order `auto` tries them
CHROMIUM_FLAGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-sync",
    "--disable-quic",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--mute-audio",
    # --max-old-space-size: above the watchdog's default budget, so a heap bomb meets the
    # watchdog before V8 starts thrashing near its own limit.
    # --no-concurrent-*: V8 compiles hot functions (Sparkplug, Maglev, Turbofan, OSR) on the
    # main thread when asked, not on background threads that finish when they finish. Frame
    # sizes differ by tier, so with background compiles the depth at which a sketch's own
    # recursion overflows depended on thread timing (17525 to 20542 frames over 5 renders of
    # one code and seed, one verdict in five different); now it is the same on every render
    # (20543 over 2 launches x 3 renders, and for a sketch that tiers up first). Measured
    # cost: none beyond noise (examples/flower.js, 5 interleaved renders each on a loaded
    # 2-core machine: median 3.74 s with background compiles, 3.70 s without).
    # --predictable and --single-threaded gave the same depth but also make the garbage
    # collector single-threaded.
    "--js-flags=--max-old-space-size=2048 --no-concurrent-recompilation --no-concurrent-sparkplug",
)


# The idle size is taken once the browser's memory holds still: SETTLE_SAMPLES samples in a row,
# SETTLE_INTERVAL_S apart, within SETTLE_SPREAD_MB of each other (a lightly loaded machine settles
# about a second after launch, a busy one later); after SETTLE_TIMEOUT_S the largest sample seen.
SETTLE_INTERVAL_S = 0.2
SETTLE_SAMPLES = 5
SETTLE_SPREAD_MB = 8.0
SETTLE_TIMEOUT_S = 20.0


def settled_size(samples: list[float]) -> float | None:
    """The idle size once the last SETTLE_SAMPLES samples lie within SETTLE_SPREAD_MB; None while still moving."""
    recent = samples[-SETTLE_SAMPLES:]
    if len(recent) < SETTLE_SAMPLES or max(recent) - min(recent) > SETTLE_SPREAD_MB:
        return None
    return max(recent)


@cache
def network_isolated_executable(executable: Path) -> Path | None:
    """A wrapper that starts Chromium in a new, empty network namespace, if this machine allows one."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    for flags in (["--net"], ["--user", "--map-root-user", "--net"]):
        probe = subprocess.run([unshare, *flags, "true"], capture_output=True, check=False)
        if probe.returncode == 0:
            wrapper = Path(tempfile.mkdtemp(prefix="watercolour-chromium-")) / "chromium"
            wrapper.write_text(f'#!/bin/sh\nexec {unshare} {" ".join(flags)} {executable} "$@"\n')
            wrapper.chmod(0o755)
            return wrapper
    log.warning("cannot create a network namespace here: Chromium keeps the host network (requests stay blocked)")
    return None


class Chromium:
    def __init__(self, playwright: Playwright, executable: Path, isolate_network: bool = True, gl: str = "software"):
        self._playwright = playwright
        self._flags = (*GL_FLAGS[gl], *CHROMIUM_FLAGS)
        isolated = network_isolated_executable(executable) if isolate_network else None
        self.network_isolated = isolated is not None
        self._executable = isolated or executable
        self.marker = f"--watercolour-browser={uuid.uuid4().hex}"
        self.browser: Browser | None = None
        self._root: psutil.Process | None = None
        self.idle_mb = 0.0

    async def launch(self) -> None:
        self.browser = await self._playwright.chromium.launch(
            executable_path=str(self._executable),
            headless=True,
            args=[*self._flags, self.marker],
        )
        self._root = await asyncio.to_thread(self._find_root)
        self.idle_mb = await self._settled_memory_mb()

    async def _settled_memory_mb(self) -> float:
        """The browser's idle size once it has finished starting (settled_size)."""
        samples = [await asyncio.to_thread(self.memory_mb)]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + SETTLE_TIMEOUT_S
        while (size := settled_size(samples)) is None:
            if self._root is None or loop.time() > deadline:
                return max(samples)
            await asyncio.sleep(SETTLE_INTERVAL_S)
            samples.append(await asyncio.to_thread(self.memory_mb))
        return size

    def _find_root(self) -> psutil.Process | None:
        for process in psutil.process_iter(["cmdline"]):
            with contextlib.suppress(psutil.Error, TypeError):
                if self.marker in (process.info["cmdline"] or []):
                    return process
        log.warning("chromium process with %s not found; memory watchdog disabled for it", self.marker)
        return None

    def memory_mb(self) -> float:
        """Resident memory of the browser and every child process (shared pages counted in each)."""
        if self._root is None:
            return 0.0
        total = 0
        with contextlib.suppress(psutil.Error):
            for process in [self._root, *self._root.children(recursive=True)]:
                with contextlib.suppress(psutil.Error):
                    total += process.memory_info().rss
        return total / 2**20

    async def kill(self) -> None:
        """End the whole process tree at once; a hung page cannot delay this."""
        if self._root is not None:
            with contextlib.suppress(psutil.Error):
                for process in [*self._root.children(recursive=True), self._root]:
                    with contextlib.suppress(psutil.Error):
                        process.kill()
        if self.browser is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.browser.close(), timeout=5)
        self.browser = None
        self._root = None

    async def close(self) -> None:
        if self.browser is not None:
            try:
                await asyncio.wait_for(self.browser.close(), timeout=10)
            except Exception:  # noqa: BLE001 - a browser that will not close is killed
                await self.kill()
        self.browser = None

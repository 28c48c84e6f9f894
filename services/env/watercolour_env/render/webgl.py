"""Which WebGL back end really draws: read from the browser, never assumed.

`WATERCOLOUR_CHROMIUM_GL` names a flag set (chromium.py's GL_FLAGS). Chromium
quietly falls back to a CPU rasteriser when a GPU flag set finds no GPU, so the
pool reads the WebGL renderer string of a browser it launched. A GPU mode that
finds no GPU is a start-up error; `auto` tries the GPU modes where the machine
has a GPU device at all, and takes the first that answers; without one, Mesa's
llvmpipe where it draws (the faster CPU path, docs/rendering.md), else SwiftShader.
"""

from __future__ import annotations

import asyncio
import glob
import logging
from dataclasses import dataclass
from pathlib import Path

from playwright.async_api import Browser, Playwright
from playwright.async_api import Error as PlaywrightError

from watercolour_env.render.chromium import GPU_MODES, Chromium

log = logging.getLogger(__name__)

# Renderer strings of CPU rasterisers: what Chromium reports when no GPU draws.
_CPU_RASTERISERS = ("swiftshader", "llvmpipe", "softpipe", "software", "microsoft basic render")
# A probe browser that has not said what draws by then never will: its mode is not taken.
PROBE_TIMEOUT_S = 60
# Device nodes a GPU driver creates; without any, no GPU mode can answer and `auto` tries none.
_GPU_DEVICES = ("/dev/nvidia[0-9]*", "/dev/dri/renderD*")

_READ_RENDERER = """() => {
  const gl = document.createElement("canvas").getContext("webgl2") || document.createElement("canvas").getContext("webgl");
  if (!gl) return "no WebGL";
  const info = gl.getExtension("WEBGL_debug_renderer_info");
  return String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
}"""


@dataclass(frozen=True)
class WebGLBackend:
    requested: str  # the setting
    mode: str  # the flag set the pool launches with
    renderer: str  # the WebGL renderer string its browsers report

    @property
    def on_gpu(self) -> bool:
        return drawn_on_gpu(self.renderer)


def drawn_on_gpu(renderer: str) -> bool:
    lowered = renderer.lower()
    return renderer != "no WebGL" and not any(name in lowered for name in _CPU_RASTERISERS)


def gpu_device_present() -> bool:
    return any(glob.glob(pattern) for pattern in _GPU_DEVICES)


async def read_renderer(browser: Browser) -> str:
    """The WebGL renderer string of a launched browser, read on a blank page."""
    context = await browser.new_context()
    try:
        page = await context.new_page()
        return await page.evaluate(_READ_RENDERER)
    finally:
        await context.close()


def drawn_by_llvmpipe(renderer: str) -> bool:
    return "llvmpipe" in renderer.lower()


async def _probe(playwright: Playwright, executable: Path, mode: str, isolate_network: bool) -> str | None:
    """The renderer string a browser launched as the pool launches its own, with `mode`'s flags, reports; None
    when it could not tell within PROBE_TIMEOUT_S (the mode is then not taken)."""
    probe = Chromium(playwright, executable, isolate_network=isolate_network, gl=mode)
    try:
        await asyncio.wait_for(probe.launch(), PROBE_TIMEOUT_S)
        return await asyncio.wait_for(read_renderer(probe.browser), PROBE_TIMEOUT_S)
    except (PlaywrightError, asyncio.TimeoutError) as error:
        log.warning("a browser launched for WebGL through %s could not say what draws: %s", mode, error)
        return None
    finally:
        await probe.close()


async def choose_mode(playwright: Playwright, executable: Path, requested: str, isolate_network: bool) -> str:
    """The flag set to launch with: the setting, or for `auto` the first GPU mode that answers, else the
    fastest CPU path that draws here."""
    if requested != "auto":
        return requested
    if gpu_device_present():
        for mode in GPU_MODES:
            renderer = await _probe(playwright, executable, mode, isolate_network)
            if renderer is not None and drawn_on_gpu(renderer):
                return mode
            log.info("WebGL through %s draws on %r: not a GPU", mode, renderer)
    renderer = await _probe(playwright, executable, "llvmpipe", isolate_network)
    if renderer is not None and drawn_by_llvmpipe(renderer):
        return "llvmpipe"
    log.info("WebGL through Mesa's EGL draws on %r, not llvmpipe: SwiftShader draws", renderer)
    return "software"


def checked_backend(requested: str, mode: str, renderer: str) -> WebGLBackend:
    backend = WebGLBackend(requested, mode, renderer)
    if mode in GPU_MODES and not backend.on_gpu:
        raise RuntimeError(
            f"WATERCOLOUR_CHROMIUM_GL={requested} needs a GPU, but WebGL draws on {renderer!r}: no GPU answered "
            "(check the driver's Vulkan ICD or EGL vendor file, and NVIDIA_DRIVER_CAPABILITIES=graphics in a container)"
        )
    if mode == "llvmpipe" and not drawn_by_llvmpipe(renderer):
        raise RuntimeError(
            f"WATERCOLOUR_CHROMIUM_GL={requested} needs Mesa's llvmpipe, but WebGL draws on {renderer!r} "
            "(install libegl-mesa0 and libgl1-mesa-dri, or use software)"
        )
    return backend

"""Which WebGL back end draws, on a machine without a GPU (CI): the choice, its errors, the cache key, and that
the two CPU paths draw the same picture.
What a GPU host draws, and how fast, is measured by bench/webgl_bench.py on one (docs/rendering.md)."""

import asyncio

import numpy as np
import pytest

from tests.conftest import BUNDLED_POOL, pixels
from watercolour_env.render import webgl
from watercolour_env.render.browser_pool import BrowserPool
from watercolour_env.render.chromium import GL_FLAGS
from watercolour_env.render.renderer import Renderer
from watercolour_env.render.webgl import WebGLBackend, drawn_on_gpu
from watercolour_shared.paint import PAINT_DISTANCE

# Renderer strings: the Vulkan one as read on an H200 host, the EGL one in the form ANGLE gives a GL
# back end, the last two as read on this machine.
NVIDIA_VULKAN = "ANGLE (NVIDIA, Vulkan 1.4.312 (NVIDIA H200))"
NVIDIA_EGL = "ANGLE (NVIDIA Corporation, NVIDIA H200/PCIe/SSE2, OpenGL ES 3.2)"
SWIFTSHADER = "ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero) (0x0000C0DE)), SwiftShader driver)"
LLVMPIPE = "ANGLE (Mesa/X.org, llvmpipe (LLVM 15.0.6 256 bits), OpenGL ES 3.2)"


READINGS = [(NVIDIA_VULKAN, True), (NVIDIA_EGL, True), (SWIFTSHADER, False), (LLVMPIPE, False)]


@pytest.mark.parametrize(("renderer", "gpu"), READINGS)
def test_a_gpu_is_told_from_a_cpu_rasteriser_by_the_renderer_string(renderer, gpu):
    assert drawn_on_gpu(renderer) is gpu


def test_gpu_vulkan_puts_angle_on_vulkan_without_chromiums_own_vulkan_feature():
    """The `Vulkan` feature crashed Chromium 156's GPU process on an H200 host; ANGLE's Vulkan alone drew there."""
    flags = GL_FLAGS["gpu-vulkan"]
    features = [name for flag in flags if flag.startswith("--enable-features=") for name in flag.split("=", 1)[1].split(",")]
    assert "--use-angle=vulkan" in flags and "--enable-gpu" in flags
    assert {"VulkanFromANGLE", "DefaultANGLEVulkan"} <= set(features)
    assert "Vulkan" not in features
    assert "--disable-gpu" not in flags


async def start(settings, **update) -> BrowserPool:
    pool = BrowserPool(settings.model_copy(update={"browsers": 1, **update}))
    await pool.start()
    return pool


async def test_auto_draws_on_llvmpipe_here_and_says_what_really_draws(settings):
    pool = await start(settings, chromium_gl="auto")
    try:
        assert pool.webgl.mode == "llvmpipe"
        assert "llvmpipe" in pool.webgl.renderer
        assert not pool.webgl.on_gpu
    finally:
        await pool.close()


def flags_that_draw_swiftshader(monkeypatch):
    monkeypatch.setitem(GL_FLAGS, "llvmpipe", GL_FLAGS["software"])


def no_egl_vendor(monkeypatch):
    """The browsers inherit the environment: with no EGL vendor library to load, ANGLE's EGL back end cannot draw."""
    monkeypatch.setenv("__EGL_VENDOR_LIBRARY_FILENAMES", "/nonexistent/egl_vendor.json")


def a_silent_probe(monkeypatch):
    async def silent(browser):
        await asyncio.sleep(3600)

    monkeypatch.setattr(webgl, "PROBE_TIMEOUT_S", 1)
    monkeypatch.setattr(webgl, "read_renderer", silent)


@pytest.mark.parametrize("llvmpipe_fails", [flags_that_draw_swiftshader, no_egl_vendor, a_silent_probe])
async def test_auto_draws_with_swiftshader_where_llvmpipe_does_not_answer(settings, monkeypatch, llvmpipe_fails):
    llvmpipe_fails(monkeypatch)
    pool = await start(settings, chromium_gl="auto")
    try:
        assert pool.webgl.mode == "software"
        assert "SwiftShader" in pool.webgl.renderer
    finally:
        await pool.close()


def test_llvmpipe_keeps_the_2d_canvas_off_the_rasteriser():
    """p5.brush's 2D fill masks drawn through llvmpipe made renders about 7 times slower (docs/rendering.md)."""
    flags = GL_FLAGS["llvmpipe"]
    assert {"--use-angle=gl-egl", "--enable-gpu"} <= set(flags)
    assert {"--disable-accelerated-2d-canvas", "--disable-gpu-rasterization"} <= set(flags)


async def test_llvmpipe_asked_by_name_refuses_to_start_where_it_does_not_draw(settings, monkeypatch):
    monkeypatch.setitem(GL_FLAGS, "llvmpipe", GL_FLAGS["software"])
    with pytest.raises(RuntimeError, match="WATERCOLOUR_CHROMIUM_GL=llvmpipe needs Mesa's llvmpipe"):
        await start(settings, chromium_gl="llvmpipe")


async def test_llvmpipe_draws_what_swiftshader_draws(settings, rules):
    """The two CPU paths blend within a level or so of each other: no pixel crosses the paint threshold's
    distance in more than a thousandth of the canvas. llvmpipe draws the same picture twice."""
    sketch = (BUNDLED_POOL / "sources" / "peach-hibiscus-a.js").read_text()
    pictures = {}
    for mode in ("software", "llvmpipe", "llvmpipe"):
        renderer = Renderer(settings.model_copy(update={"browsers": 1, "chromium_gl": mode}), rules)
        await renderer.start()
        try:
            result = await renderer.render(sketch, seed=1)
        finally:
            await renderer.close()
        assert result.status == "passed", result.violations
        pictures.setdefault(mode, []).append(pixels(result).astype(np.int32))
    swiftshader, (llvmpipe, again) = pictures["software"][0], pictures["llvmpipe"]
    distance = np.sqrt(((swiftshader - llvmpipe) ** 2).sum(axis=2))
    assert (distance > 0).any()  # two rasterisers, not one
    assert (distance > PAINT_DISTANCE).mean() < 1e-3
    assert np.array_equal(llvmpipe, again)


@pytest.mark.parametrize("mode", ["gpu-vulkan", "gpu-egl"])
async def test_a_gpu_mode_that_finds_no_gpu_refuses_to_start(settings, mode):
    with pytest.raises(RuntimeError, match=f"WATERCOLOUR_CHROMIUM_GL={mode} needs a GPU"):
        await start(settings, chromium_gl=mode)


async def test_auto_tries_each_gpu_mode_where_a_gpu_device_exists(settings, monkeypatch):
    """With a GPU device node but no driver answering, both GPU modes are read and refused: llvmpipe draws."""
    tried = []
    read = webgl.read_renderer

    async def recording_read(browser):
        renderer = await read(browser)
        tried.append(renderer)
        return renderer

    monkeypatch.setattr(webgl, "gpu_device_present", lambda: True)
    monkeypatch.setattr(webgl, "read_renderer", recording_read)
    pool = await start(settings, chromium_gl="auto")
    try:
        assert pool.webgl.mode == "llvmpipe"
        assert len(tried) == 3 and not any(drawn_on_gpu(renderer) for renderer in tried)
    finally:
        await pool.close()


def test_renders_from_one_back_end_never_answer_for_another(settings, rules):
    renderer = Renderer(settings, rules)
    keys = {}
    for backend in (
        WebGLBackend("auto", "software", SWIFTSHADER),
        WebGLBackend("auto", "gpu-vulkan", NVIDIA_VULKAN),
        WebGLBackend("gpu-egl", "gpu-egl", NVIDIA_EGL),
        WebGLBackend("auto", "llvmpipe", LLVMPIPE),
    ):
        renderer.browsers.webgl = backend
        keys[backend.mode] = renderer.version
    assert len(set(keys.values())) == 4
    assert "NVIDIA H200" in keys["gpu-vulkan"]
    assert "LLVM 15.0.6" in keys["llvmpipe"]  # another LLVM may blend differently

"""Facts about the libraries and the renderer that the gate relies on."""

import base64
import io
import json

import numpy as np
from PIL import Image
from playwright.async_api import async_playwright

from tests.conftest import pixels, sketch
from watercolour_env.gate.rules import DATA_DIR
from watercolour_env.render.page_files import library_files

# SwiftShader left a few dozen pixels different between identical renders (llvmpipe none).
SAME_PICTURE_MAX_CHANGED = 0.005


def changed_share(a, b) -> float:
    return float((np.abs(pixels(a) - pixels(b)).max(axis=2) > 16).mean())


async def test_brush_api_file_matches_the_installed_library(settings):
    files = library_files(settings.assets_dir)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=str(settings.chromium_path), args=["--disable-gpu"])
        page = await browser.new_page()
        for name in ("/lib/p5.min.js", "/lib/p5.brush.js"):
            await page.add_script_tag(content=files[name].body.decode())
        exported = await page.evaluate("Object.keys(window.brush).sort()")
        await browser.close()
    listed = json.loads((DATA_DIR / "brush_api.json").read_text())["names"]
    assert sorted(listed) == exported


async def test_allowlist_methods_exist_in_the_library():
    allow = json.loads((DATA_DIR / "allowlist.json").read_text())
    api = set(json.loads((DATA_DIR / "brush_api.json").read_text())["names"])
    assert set(allow["methods"]) <= api


async def test_same_code_and_seed_paint_the_same_picture(renderer):
    first = await renderer.render(sketch("two-washes.js"), seed=11)
    second = await renderer.render(sketch("two-washes.js"), seed=11)
    assert first.status == second.status == "passed"
    assert changed_share(first, second) < SAME_PICTURE_MAX_CHANGED


async def test_another_seed_paints_another_picture(renderer):
    first = await renderer.render(sketch("two-washes.js"), seed=11)
    other = await renderer.render(sketch("two-washes.js"), seed=12)
    assert changed_share(first, other) > SAME_PICTURE_MAX_CHANGED


async def test_png_is_600_square_and_timings_add_up(renderer):
    result = await renderer.render(sketch("two-washes.js"), seed=5)
    assert Image.open(io.BytesIO(base64.b64decode(result.png_base64))).size == (600, 600)
    timings = result.timings
    assert timings.load_ms > 0 and timings.draw_ms > 0 and timings.readback_ms > 0
    assert timings.load_ms + timings.draw_ms + timings.readback_ms <= timings.total_ms

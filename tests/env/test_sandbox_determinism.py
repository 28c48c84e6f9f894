"""Seed and code fix a render; nothing else may move its verdict (docs/sandbox.md, issue 43 class 3).

A sketch that reads the clock, in any form the world offers, gets the same verdict and the same
picture on every render of a seed, seconds apart: the world's `Date` is a virtual clock. The memory
watchdog's baseline is the browser's settled size, not a sample taken while it was still starting.
"""

import asyncio

import numpy as np
import pytest
from playwright.async_api import async_playwright

from tests.conftest import pixels
from tests.env.test_sandbox_world import cheat, codes
from watercolour_env.render import chromium
from watercolour_env.render.chromium import Chromium, settled_size

# As tests/env/test_render_facts.py: the share of pixels that may differ between identical renders.
SAME_PICTURE_MAX_CHANGED = 0.005

# Paint where the clock says: two renders seconds apart of the real clock put it elsewhere (or nowhere).
PAINT_AT = (
    "const place = (t) => 100 + (Math.floor(t) % 400 + Math.floor(t / 1000) % 400) % 400;"
    "brush.fill('#b83b5e', 200); brush.circle(place(t), 300, 120);"
)
CLOCKS = {
    "Date.now()": "const t = Date.now();",
    "new Date()": "const t = new Date().getTime();",
    "Date() as a string": "const t = Date.parse(Date());",
    "the fields of a date": "const d = new Date(); const t = d.getUTCSeconds() * 1000 + d.getUTCMilliseconds();",
    "the local time": "const d = new Date(); const t = d.getHours() * 3600000 + d.getMinutes() * 60000 + d.getSeconds() * 1000;",
    "a subclass of Date": "class Day extends Date {} const t = new Day().valueOf();",
    "the constructor of a date": "const t = new Date(0).constructor.now();",
    "the time taken by a loop": "const s = Date.now(); for (let i = 0; i < 1e6; i++) {} const t = (Date.now() - s) * 997;",
    "paints only in even seconds": (
        "const t = 300; if (Date.now() % 2000 < 1000) { brush.fill('#3b5eb8', 200); brush.circle(300, 300, 200); }"
    ),
}


def changed_share(a, b) -> float:
    return float((np.abs(pixels(a) - pixels(b)).max(axis=2) > 16).mean())


@pytest.mark.parametrize("case", CLOCKS)
async def test_a_sketch_that_reads_the_clock_gets_one_verdict_and_one_picture(services, case):
    sketch = cheat(CLOCKS[case] + PAINT_AT)
    assert services.pipeline.gate(sketch)[1] == []
    first = await services.renderer.render(sketch, seed=7)
    await asyncio.sleep(1.3)  # past a second's boundary, whatever the render took
    second = await services.renderer.render(sketch, seed=7)
    assert first.status == second.status == "passed", (first.violations, first.errors, second.violations)
    assert codes(first) == codes(second)
    assert changed_share(first, second) < SAME_PICTURE_MAX_CHANGED


async def test_dates_with_arguments_are_ordinary_dates(renderer):
    checks = (
        "const d = new Date(2020, 1, 1);"
        "if (d.getTime() !== Date.UTC(2020, 1, 1) || d.getMonth() !== 1 || d.getDay() !== 6) throw new Error('local');"
        "if (new Date('2020-02-01T12:00:00Z').getUTCHours() !== 12 || new Date(0).toISOString() !== '1970-01-01T00:00:00.000Z')"
        "  throw new Error('parse');"
        "if (d.toLocaleDateString() !== '2/1/2020') throw new Error('locale');"
        "const a = Date.now(); const b = Date.now(); if (!(b > a) || !(new Date() instanceof Date)) throw new Error('clock');"
        "if (Date.prototype.constructor !== Date || new Date(0).constructor !== Date) throw new Error('constructor');"
        "brush.fill('#b83b5e', 200); brush.circle(300, 300, 200);"
    )
    result = await renderer.render(cheat(checks), seed=2)
    assert result.status == "passed", (result.violations, result.errors)
    assert not result.errors


# -- the memory watchdog's baseline ------------------------------------------------------------


def test_the_idle_size_is_taken_once_memory_holds_still():
    starting = [168.0, 240.0, 380.0, 471.0, 520.0, 551.0, 558.0]
    assert settled_size(starting) is None  # still growing
    held = [*starting, 561.0, 560.0, 562.0, 559.0]
    assert settled_size(held) == 562.0  # five samples within the spread
    assert settled_size([560.0] * (chromium.SETTLE_SAMPLES - 1)) is None  # too few to tell


async def test_the_watchdogs_baseline_is_the_settled_browser(settings):
    """The old baseline was one sample right after launch (168-558 MB seen, settling near 560): growth
    measured from it counted Chromium's own start-up against the sketch."""
    async with async_playwright() as playwright:
        browser = Chromium(playwright, settings.chromium_path, settings.isolate_network, "software")
        await browser.launch()
        try:
            await asyncio.sleep(3)
            later = await asyncio.to_thread(browser.memory_mb)
        finally:
            await browser.close()
    assert browser.idle_mb > 0
    assert abs(later - browser.idle_mb) < 0.1 * later, (browser.idle_mb, later)

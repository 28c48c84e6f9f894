"""Thousands of rollouts: the JSON is paginated and cached per step, the images load lazily."""

import os
import time

import httpx
import pytest
from playwright.async_api import expect

from tests.studio.conftest import served
from watercolour_shared.run_dir import RunReader, RunWriter

STEPS, PER_STEP = 40, 64


@pytest.fixture(scope="module")
def big_film(film, tmp_path_factory):
    """2,560 rollouts: the real film's rollouts again and again (records renumbered, paintings hard-linked)."""
    source = RunReader(film)
    rollouts, metrics = source.all_rollouts(), source.metrics()
    run = RunWriter(tmp_path_factory.mktemp("big-run"))
    run.write_plan(source.plan())
    for step in range(1, STEPS + 1):
        for index in range(PER_STEP):
            rollout = rollouts[(step * PER_STEP + index) % len(rollouts)]
            run.record(rollout.record.model_copy(update={"step": step, "index": index}))
            if rollout.png:
                os.link(rollout.png, run.rollout_stem(step, index).with_suffix(".png"))
        run.append_metrics(metrics[step % len(metrics)].model_copy(update={"step": step, "rollouts": PER_STEP}))
    return run.root


@pytest.fixture(scope="module")
def big_gallery(big_film):
    with served("gallery", str(big_film), "--port", "0") as url:
        yield url


def timed_get(url: str) -> tuple[float, object]:
    started = time.perf_counter()
    answer = httpx.get(url, timeout=60).raise_for_status().json()
    return time.perf_counter() - started, answer


def test_the_step_list_is_read_once_then_served_from_the_cache(big_gallery):
    cold, steps = timed_get(f"{big_gallery}/api/steps")
    warm, again = timed_get(f"{big_gallery}/api/steps")
    assert len(steps) == STEPS and sum(s["rollouts"] for s in steps) == STEPS * PER_STEP
    assert again == steps
    assert cold < 10, f"the first read of 2,560 rollouts took {cold:.1f} s"
    assert warm < 1.0, f"an unchanged film took {warm:.2f} s to list again"
    page_time, page = timed_get(f"{big_gallery}/api/steps/7?offset=48&limit=24")
    assert [item["index"] for item in page["items"]] == list(range(48, 64))
    assert page_time < 0.5


async def test_a_page_of_paintings_at_a_time(page, big_gallery):
    paintings = []
    page.on("request", lambda request: paintings.append(request.url) if request.url.endswith(".png") else None)
    started = time.perf_counter()
    await page.goto(f"{big_gallery}/#/steps?step=7")
    await expect(page.locator("#paintings .card")).to_have_count(24)
    assert time.perf_counter() - started < 10
    await expect(page.locator("#page-info")).to_have_text(f"1–24 of {PER_STEP}")
    assert await page.eval_on_selector_all("#paintings img", "imgs => imgs.every(i => i.loading === 'lazy')")
    assert len(set(paintings)) <= 24
    await page.click("#page-next")
    await expect(page.locator("#page-info")).to_have_text(f"25–48 of {PER_STEP}")
    await page.click("#page-next")
    await expect(page.locator("#page-info")).to_have_text(f"49–64 of {PER_STEP}")
    await expect(page.locator("#page-next")).to_be_disabled()
    await expect(page.locator("#paintings .card").first).to_have_attribute("data-index", "48")


async def test_the_evolution_strip_loads_only_what_comes_into_view(page, big_gallery):
    paintings = set()
    page.on("requestfinished", lambda request: paintings.add(request.url) if request.url.endswith(".png") else None)
    await page.goto(f"{big_gallery}/#/evolution")
    await expect(page.locator("#strip figure")).to_have_count(STEPS)
    await page.wait_for_load_state("networkidle")
    seen = len(paintings)
    assert 0 < seen < STEPS, f"{seen} of {STEPS} strip paintings loaded before any scrolling"
    await page.locator("#strip figure").last.scroll_into_view_if_needed()
    await expect(page.locator("#strip img").last).to_have_js_property("complete", True)
    await page.wait_for_load_state("networkidle")
    assert len(paintings) > seen

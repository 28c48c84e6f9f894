"""The run gallery in real Chromium, served by `watercolour gallery` over a film a real environment made."""

import json
import socket

import pytest
from playwright.async_api import expect

from tests.conftest import BUNDLED_POOL
from tests.studio.conftest import served, watercolour
from tests.studio.film import BARE_PRIMITIVE, GOOD, REFUSAL, write_step
from watercolour_shared.paint import paint_fraction
from watercolour_shared.run_dir import RunReader
from watercolour_studio.gallery.cards import median


@pytest.fixture(scope="module")
def gallery(film):
    with served("gallery", str(film), "--port", "0", "--pool", str(BUNDLED_POOL)) as url:
        yield url


async def open_view(page, url: str, route: str, ready: str):
    await page.goto(f"{url}/#/{route}")
    await page.wait_for_selector(ready)


async def test_curves_chart_every_metric_of_every_step(page, gallery, film):
    await open_view(page, gallery, "curves", "#chart-low circle")
    metrics = RunReader(film).metrics()
    expected = {
        "chart-reward": ["mean reward"],
        "chart-components": ["gate", "length", "judge", "hps"],
        "chart-gate": ["passed the gate"],
        "chart-low": ["rollouts below 0.3"],
    }
    for chart, series in expected.items():
        assert await page.eval_on_selector_all(f"#{chart} [data-series]", "els => els.map(e => e.dataset.series)") == series
        assert await page.locator(f"#{chart} circle").count() == len(series) * len(metrics)
        assert paint_fraction(await page.locator(f"#{chart} svg").screenshot()) > 0.01, f"{chart} is blank"
    titles = await page.eval_on_selector_all("#chart-reward circle title", "els => els.map(e => e.textContent)")
    assert [float(title.rsplit(": ", 1)[1]) for title in titles] == [round(row.reward_mean, 3) for row in metrics]
    points = await page.get_attribute("#chart-reward polyline", "points")
    heights = [float(point.split(",")[1]) for point in points.split()]
    assert heights == sorted(heights, reverse=True)  # the reward rises, so the line climbs


async def test_a_step_shows_its_paintings_and_a_click_opens_one(page, gallery, film):
    await open_view(page, gallery, "steps?step=2", "#paintings .card")
    run = RunReader(film)
    rollouts = run.rollouts(2)
    cards = page.locator("#paintings .card")
    await expect(cards).to_have_count(len(rollouts))
    shown = await page.eval_on_selector_all("#paintings .card .reward", "els => els.map(e => e.textContent)")
    assert shown == [f"{r.record.reward:.2f}" for r in rollouts]
    thumbnail = page.locator(".card[data-index='0'] img")
    await expect(thumbnail).to_have_js_property("complete", True)
    assert paint_fraction(await thumbnail.screenshot()) > 0.05, "the thumbnail is blank"

    await page.click(".card[data-index='1']")
    dialog = page.locator("#detail")
    await expect(dialog).to_be_visible()
    await expect(page.locator("#detail-title")).to_contain_text("Step 2 · rollout 1 · group 0")
    code = (run.step_dir(2) / "rollout-01.js").read_text()
    assert await page.inner_text("pre.code") == code
    assert await page.locator("pre.code span.kd").count() > 5  # keywords highlighted
    await page.click("#copy-code")
    await expect(page.locator("#copy-code")).to_have_text("Copied")
    assert await page.evaluate("navigator.clipboard.readText()") == code


async def test_the_references_it_faced_with_the_judges_reasons(page, gallery, film):
    await open_view(page, gallery, "steps?step=3", "#paintings .card")
    await page.click(".card[data-index='0']")
    record = RunReader(film).rollout(3, 0).record
    comparisons = record.evaluation.reward.details["judge"]["comparisons"]
    rows = page.locator("table.refs tr[data-reference]")
    await expect(rows).to_have_count(len(comparisons))
    assert await rows.evaluate_all("rows => rows.map(r => r.dataset.reference)") == [c["reference_id"] for c in comparisons]
    first = comparisons[0]
    await expect(rows.first).to_contain_text(first["candidate_as_a"]["reason"])
    await expect(rows.first).to_contain_text(first["candidate_as_b"]["reason"])
    image = rows.first.locator("img")
    await expect(image).to_have_js_property("complete", True)
    assert await image.evaluate("img => img.naturalWidth") == 600  # the pool's own painting


async def test_arrow_keys_walk_the_paintings_and_escape_closes(page, gallery, film):
    await open_view(page, gallery, "steps?step=2", "#paintings .card")
    await page.click(".card[data-index='1']")
    await expect(page.locator("#detail-title")).to_contain_text("rollout 1 ")
    await page.keyboard.press("ArrowRight")
    await expect(page.locator("#detail-title")).to_contain_text("rollout 2 ")
    await expect(page.locator(".violations")).to_contain_text("no_sketch")
    await expect(page.locator("pre.code")).to_have_text(REFUSAL)  # no code found: the raw reply
    await page.keyboard.press("ArrowRight")
    await expect(page.locator(".violations")).to_contain_text("bare_p5_primitive")
    await expect(page.locator("pre.code .line.flagged")).to_have_text(BARE_PRIMITIVE.splitlines()[6])  # line 7, as reported
    await page.keyboard.press("ArrowLeft")
    await page.keyboard.press("ArrowLeft")
    await expect(page.locator("#detail-title")).to_contain_text("rollout 1 ")
    await page.keyboard.press("ArrowLeft")
    await expect(page.locator("#detail-title")).to_contain_text("rollout 0 ")
    await page.keyboard.press("Escape")
    await expect(page.locator("#detail")).to_be_hidden()


async def test_filters_by_reward_band_and_violation_survive_a_reload(page, gallery, film):
    await open_view(page, gallery, "steps?step=2", "#paintings .card")
    rollouts = RunReader(film).rollouts(2)
    await page.select_option("#band", "low")
    low = [r.record.index for r in rollouts if r.record.reward < 0.3]
    await expect(page.locator("#paintings .card")).to_have_count(len(low))
    assert await page.eval_on_selector_all("#paintings .card", "els => els.map(e => +e.dataset.index)") == low
    await page.select_option("#violation", "bare_p5_primitive")
    bare = [r.record.index for r in rollouts if "bare_p5_primitive" in r.record.violations]
    await expect(page.locator("#paintings .card")).to_have_count(len(bare))
    await expect(page.locator("#page-info")).to_have_text(f"1–{len(bare)} of {len(bare)} (of {len(rollouts)})")
    await page.reload()
    await expect(page.locator("#paintings .card")).to_have_count(len(bare))
    assert await page.input_value("#violation") == "bare_p5_primitive"
    await page.go_back()  # the band alone
    await expect(page.locator("#paintings .card")).to_have_count(len(low))


async def test_each_group_of_a_step_apart_with_its_prompt_and_mean(page, gallery, film):
    await open_view(page, gallery, "steps?step=2", "#paintings .card")
    rollouts = RunReader(film).rollouts(2)
    second = [r for r in rollouts if r.record.group == 1]
    rewards = [r.record.reward for r in second if r.record.reward is not None]
    label = f"g1 · {second[0].record.prompt} · mean {sum(rewards) / len(rewards):.3f}"
    assert label in await page.inner_text("#group")
    await page.select_option("#group", "1")
    await expect(page.locator("#paintings .card")).to_have_count(len(second))
    assert await page.eval_on_selector_all("#paintings .card", "els => els.map(e => +e.dataset.index)") == [
        r.record.index for r in second
    ]


async def test_keys_step_through_the_film(page, gallery):
    await open_view(page, gallery, "steps?step=2", "#paintings .card")
    await page.keyboard.press("]")
    await expect(page.locator("#step")).to_have_value("3")
    await page.keyboard.press("[")
    await page.keyboard.press("[")
    await expect(page.locator("#step")).to_have_value("1")
    await expect(page.locator("#step-prev")).to_be_disabled()


async def test_two_steps_side_by_side(page, gallery, film):
    await open_view(page, gallery, "compare?a=1&b=4", "#column-b .card")
    run = RunReader(film)
    for side, step in (("a", 1), ("b", 4)):
        rewards = [r.record.reward for r in run.rollouts(step)]
        await expect(page.locator(f"#column-{side} .stats")).to_contain_text(f"mean {sum(rewards) / len(rewards):.3f}")
        await expect(page.locator(f"#column-{side} .card")).to_have_count(len(rewards))
    await page.select_option("#compare-a", "3")
    await expect(page.locator("#column-a .card").first).to_have_attribute("data-step", "3")
    assert "a=3" in page.url and "b=4" in page.url


async def test_the_evolution_strip_shows_each_steps_median_painting(page, gallery, film):
    await open_view(page, gallery, "evolution", "#strip figure")
    run = RunReader(film)
    frames = page.locator("#strip figure")
    await expect(frames).to_have_count(len(run.steps()))
    sources = await frames.evaluate_all("figures => figures.map(f => f.querySelector('img').getAttribute('src'))")
    assert sources == [f"/film/{step}/{median(run.rollouts(step)).png.name}" for step in run.steps()]
    await expect(page.locator("#strip img").last).to_have_js_property("complete", True)
    assert paint_fraction(await page.locator("#strip").screenshot()) > 0.05
    await frames.nth(2).click()
    await expect(page.locator("#step")).to_have_value("3")


async def test_the_checks_panel_says_what_check_run_says(page, gallery, film):
    await open_view(page, gallery, "checks", "#checks > li")
    statuses = await page.eval_on_selector_all("#checks > li", "els => els.map(e => e.dataset.status)")
    assert statuses == ["pass", "pass", "pass", "fail", "pass", "skip", "skip"]  # no adapter, no held-out curve
    await expect(page.locator("#checks > li").nth(3)).to_contain_text("missing or unreadable: the adapter")


async def test_refresh_shows_a_step_written_while_the_page_is_open(page, film_copy, full_reward_env_url):
    with served("gallery", str(film_copy), "--port", "0") as url:
        await open_view(page, url, "steps", "#paintings .card")
        await expect(page.locator("#step option")).to_have_count(4)
        await write_step(full_reward_env_url, film_copy, 5, [GOOD, GOOD[::-1]])
        await page.keyboard.press("r")
        await expect(page.locator("#step option")).to_have_count(5)
        await page.select_option("#step", "5")
        await expect(page.locator("#paintings .card img")).to_have_count(8)
        await page.click("nav a[data-view=curves]")
        await expect(page.locator("#chart-reward circle")).to_have_count(5)
        metrics = json.loads((film_copy / "metrics.jsonl").read_text().splitlines()[-1])
        await expect(page.locator("#run-facts")).to_contain_text("5 steps · 40 rollouts")
        assert metrics["step"] == 5
        await page.close()  # before the server stops: a fetch still in flight would fail as the page's error


async def test_a_run_that_has_not_begun_says_so(page, tmp_path):
    with served("gallery", str(tmp_path), "--port", "0") as url:
        await open_view(page, url, "curves", "main .empty")
        await expect(page.locator("main .empty")).to_have_text("No step has finished yet: metrics.jsonl is empty.")
        await page.click("nav a[data-view=steps]")
        await expect(page.locator("main .empty")).to_have_text("No step in the film yet.")
        await expect(page.locator("#run-facts")).to_have_text("0 steps · 0 rollouts")


def test_a_port_in_use_is_one_line_not_a_traceback(film):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = watercolour("gallery", str(film), "--port", str(port), timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    said = f"watercolour: cannot listen on 127.0.0.1:{port}: Address already in use; try --port 0 for a free port"
    assert done.stderr.strip() == said

"""`watercolour pool rate` in real Chromium: keys grade, undo takes back, nothing is lost."""

import shutil

import pytest
from playwright.async_api import expect

from tests.conftest import BUNDLED_POOL
from tests.studio.conftest import PAINTINGS, served, serving
from watercolour_shared.paint import paint_fraction
from watercolour_studio.durable import read_lines
from watercolour_studio.pool.collection import Collection


@pytest.fixture
def names(generated):
    return [row["file_name"] for row in read_lines(generated / "metadata.jsonl")]


async def showing(page, name: str):
    await expect(page.locator("#painting")).to_have_attribute("data-file", name)


def on_disk(folder) -> list[tuple[str, str]]:
    return [(event["file_name"], event.get("tier", "undo")) for event in read_lines(folder / "grades.jsonl")]


async def test_keys_grade_one_painting_at_a_time_each_saved_at_once(page, generated_copy, names):
    with served("pool", "rate", str(generated_copy), "--port", "0") as url:
        await page.goto(url)
        await showing(page, names[0])
        await expect(page.locator("#progress")).to_contain_text(f"0 of {len(names)} graded")
        await expect(page.locator("#painting")).to_have_js_property("complete", True)
        assert paint_fraction(await page.locator("#painting").screenshot()) > 0.05, "the painting is blank"
        for key, name in zip("123", names[1:4], strict=True):
            await page.keyboard.press(key)
            await showing(page, name)
        assert on_disk(generated_copy) == [(names[0], "love"), (names[1], "okay"), (names[2], "meh")]
        await expect(page.locator("#progress")).to_have_text(f"3 of {len(names)} graded · 1 love · 1 okay · 1 meh · 0 nope")
        await page.keyboard.press("u")
        await showing(page, names[2])
        await expect(page.locator("#progress")).to_contain_text(f"2 of {len(names)} graded")
        assert Collection(generated_copy).grades() == {names[0]: "love", names[1]: "okay"}
        await page.keyboard.press("4")
        await showing(page, names[3])
        assert Collection(generated_copy).grades() == {names[0]: "love", names[1]: "okay", names[2]: "nope"}


async def test_a_refresh_or_a_crash_loses_no_grade(page, generated_copy, names):
    with serving("pool", "rate", str(generated_copy), "--port", "0") as (process, url):
        await page.goto(url)
        await showing(page, names[0])
        await page.keyboard.press("1")
        await showing(page, names[1])
        await page.reload()
        await showing(page, names[1])
        await page.keyboard.press("3")
        await showing(page, names[2])
        process.kill()  # no shutdown, no flush: the grades must already be on disk
        process.wait()
    with served("pool", "rate", str(generated_copy), "--port", "0") as url:
        await page.goto(url)
        await showing(page, names[2])
        await expect(page.locator("#progress")).to_contain_text(f"2 of {len(names)} graded · 1 love · 0 okay · 1 meh")


async def test_fast_typing_loses_no_grade(page, generated_copy, names):
    with served("pool", "rate", str(generated_copy), "--port", "0") as url:
        await page.goto(url)
        await showing(page, names[0])
        for key in "123412"[: len(names)]:
            await page.keyboard.press(key)
        await expect(page.locator("#all-graded")).to_contain_text(f"All {len(names)} paintings are graded.")
    tiers = ["love", "okay", "meh", "nope", "love", "okay"][: len(names)]
    assert Collection(generated_copy).grades() == dict(zip(names, tiers, strict=True))


async def test_the_grid_shows_every_painting_and_a_click_regrades_one(page, generated_copy, names):
    with served("pool", "rate", str(generated_copy), "--port", "0") as url:
        await page.goto(url)
        await showing(page, names[0])
        await page.keyboard.press("1")
        await showing(page, names[1])
        await page.keyboard.press("g")
        thumbs = page.locator("#thumbs .thumb")
        await expect(thumbs).to_have_count(len(PAINTINGS))
        assert (
            await page.eval_on_selector_all("#thumbs .badge", "els => els.map(e => e.textContent)") == ["love"] + ["ungraded"] * 5
        )
        await expect(page.locator("#thumbs img").last).to_have_js_property("complete", True)
        assert paint_fraction(await page.locator("#thumbs").screenshot()) > 0.05
        await thumbs.first.click()
        await showing(page, names[0])
        await expect(page.locator(".grades button.chosen")).to_have_text("love1")
        await page.keyboard.press("4")
        await showing(page, names[1])
        assert Collection(generated_copy).grades() == {names[0]: "nope"}
        await page.keyboard.press("u")  # back to the earlier grade, not to none
        await showing(page, names[0])
        assert Collection(generated_copy).grades() == {names[0]: "love"}


async def test_an_existing_pool_keeps_its_tiers_until_regraded(page, tmp_path):
    pool = shutil.copytree(BUNDLED_POOL, tmp_path / "pool")
    tiers = [row["tier"] for row in read_lines(pool / "metadata.jsonl")]
    with served("pool", "rate", str(pool), "--port", "0") as url:
        await page.goto(f"{url}/#grid")
        await expect(page.locator("#thumbs .thumb")).to_have_count(len(tiers))
        assert await page.eval_on_selector_all("#thumbs .badge", "els => els.map(e => e.textContent)") == tiers
        await page.keyboard.press("g")
        await expect(page.locator("#all-graded")).to_be_visible()
        await expect(page.locator("#undo")).to_have_count(0)

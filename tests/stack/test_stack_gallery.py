"""The CPU profile's `gallery`, opened from the host as a user opens it once `up` has started: the demo's run
(the one the demo test left in the runs volume) with its paintings, and the run's evaluation page through it."""

from __future__ import annotations

from urllib.parse import quote

import httpx
import pytest

from tests.stack.compose import GALLERY_PORT, GALLERY_SERVICE, containers
from watercolour_shared.run_dir import RunReader
from watercolour_shared.run_dir.evaluation import EVAL_DIR, read_evaluation


@pytest.fixture(scope="module")
def gallery(stack) -> httpx.Client:
    (container,) = containers(GALLERY_SERVICE)
    with httpx.Client(base_url=container.published(GALLERY_PORT), timeout=30) as client:
        yield client


def test_the_gallery_shows_the_demos_run_and_its_paintings(gallery, demo_run):
    assert "watercolour gallery" in gallery.get("/").raise_for_status().text
    shown = gallery.get("/api/run").raise_for_status().json()
    run = RunReader(demo_run)
    assert (shown["name"], shown["steps"]) == (demo_run.name, run.steps()), shown
    assert any(rollout.png for rollout in run.all_rollouts()), "the demo's run painted nothing to show"
    for step in run.steps():
        painted = [rollout for rollout in run.rollouts(step) if rollout.png]
        cards = gallery.get(f"/api/steps/{step}", params={"limit": 200}).raise_for_status().json()["items"]
        assert [card["image"] for card in cards if card["image"]] == [f"/film/{step}/{r.png.name}" for r in painted]
        for rollout in painted:
            assert gallery.get(f"/film/{step}/{rollout.png.name}").raise_for_status().content == rollout.png.read_bytes()


def test_the_gallery_serves_the_runs_evaluation_page(gallery, demo_run):
    link = gallery.get("/api/run").raise_for_status().json()["evaluation"]
    assert link == f"/{EVAL_DIR}/"
    page = gallery.get(link).raise_for_status().text
    evaluation = read_evaluation(demo_run / EVAL_DIR)
    assert f'<span class="win-rate">{evaluation.head_to_head.win_rate.mean:.0%}</span>' in page
    # The stack's demo trains a tiny policy for two steps, whose replies may all fail the gate: every painting has its
    # place on the page, painted or not, and each one painted loads through the gallery as the eval folder holds it.
    paintings = [painting for row in evaluation.rows for painting in row.a + row.b]
    assert paintings and page.count('<figure class="painting"') == len(paintings)
    for png in [painting.png for painting in paintings if painting.png]:
        src = quote(png, safe="/")  # as the page writes it, relative to the page
        assert f'src="{src}"' in page
        assert gallery.get(link + src).raise_for_status().content == (demo_run / EVAL_DIR / png).read_bytes()

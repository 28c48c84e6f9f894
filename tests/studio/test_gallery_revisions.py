"""The gallery shows a rollout's revision chain (the launch script's --revisions): each painting of its episode in the
order painted, with the critique the policy read, in real Chromium. The film is written as the trainer writes it: a
real episode of a real environment, played through the trainer's own tool environment and reward function."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from playwright.async_api import expect

from tests.conftest import fresh_seed
from tests.studio.conftest import served
from tests.studio.film import BARE_PRIMITIVE, GOOD, SUBJECT, TIMINGS, write_plan
from watercolour_shared.paint import paint_fraction
from watercolour_shared.run_dir import RunReader, RunWriter, summarise
from watercolour_trainer.env_reward import StepClock
from watercolour_trainer.revisions import FilmedToolEnv, RevisionReward

# Three paintings: a good one, a revision that fails the gate, and one more that passes.
CHAIN = [GOOD[3], BARE_PRIMITIVE, GOOD[3].replace("#b83b5e", "#3b6fd9")]


@pytest.fixture(scope="module")
def chains(server_url, tmp_path_factory):
    """Step 1: rollout 0 paints the whole chain; rollout 1 paints once and stops, so its painting is handed in twice."""
    run_dir = tmp_path_factory.mktemp("run")
    write_plan(run_dir)
    seed = fresh_seed()
    envs = [FilmedToolEnv(server_url, revisions=len(CHAIN) - 1) for _ in range(2)]
    for env, paintings in zip(envs, (CHAIN, CHAIN[:1]), strict=True):
        env.reset(subject=SUBJECT, seed=seed)
        for painting in paintings:
            env.paint(painting)
    reward = RevisionReward(RunWriter(run_dir), StepClock())
    state = SimpleNamespace(global_step=0)
    rewards = reward(
        completions=[[], []], trainer_state=state, episode_id=[0, 0], subject=[SUBJECT] * 2, seed=[seed] * 2, environments=envs
    )
    assert all(isinstance(value, float) for value in rewards)
    for env in envs:
        env.__exit__(None, None, None)
    run = RunReader(run_dir)
    RunWriter(run_dir).append_metrics(summarise(1, [r.record for r in run.rollouts(1)], TIMINGS, "2026-12-06T10:00:00+00:00"))
    return run


@pytest.fixture(scope="module")
def gallery(chains):
    with served("gallery", str(chains.root), "--port", "0") as url:
        yield url


async def open_rollout(page, url: str, index: int):
    await page.goto(f"{url}/#/steps?step=1")
    await page.wait_for_selector("#paintings .card")
    await page.click(f".card[data-index='{index}']")
    await expect(page.locator("#detail")).to_be_visible()


async def test_a_rollouts_revision_chain_shows_each_painting_in_order_with_its_critique(page, gallery, chains):
    rollout = chains.rollout(1, 0)
    await open_rollout(page, gallery, 0)
    turns = page.locator(".revisions li.turn")
    await expect(turns).to_have_count(len(CHAIN))
    assert await turns.evaluate_all("els => els.map(e => Number(e.dataset.turn))") == [0, 1, 2]
    assert await page.locator(".revisions h4").all_inner_texts() == [
        "First painting",
        "Revision 1",
        "Revision 2 · the one rewarded",
    ]
    critiques = await page.locator(".revisions blockquote.critique").all_inner_texts()
    assert critiques == [turn.critique for turn in rollout.record.turns]
    assert critiques[1].startswith("The sketch did not pass the gate") and "Paint covers" in critiques[0]
    for position, turn in enumerate(rollout.record.turns):
        item = turns.nth(position)
        await item.locator("summary").click()
        assert await item.locator("pre.code").inner_text() == turn.code
        if turn.render.status == "passed":
            image = item.locator("img.painting")
            await expect(image).to_have_js_property("complete", True)
            assert await image.get_attribute("src") == f"/film/1/rollout-00-turn-{turn.turn}.png"
            assert paint_fraction(await image.screenshot()) > 0.05, f"turn {turn.turn} is blank"
        else:
            await expect(item.locator(".no-painting")).to_be_visible()
            await expect(item).to_contain_text("bare_p5_primitive")


async def test_a_rollout_that_stopped_early_shows_its_painting_handed_in(page, gallery, chains):
    record = chains.rollout(1, 1).record
    assert [turn.handed_in for turn in record.turns] == [False, True, True]
    await open_rollout(page, gallery, 1)
    turns = page.locator(".revisions li.turn")
    await expect(turns).to_have_count(3)
    await expect(turns.nth(1)).to_contain_text("handed in again")
    await expect(turns.nth(0)).not_to_contain_text("handed in again")

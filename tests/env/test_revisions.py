"""Episodes with revisions against a real server (docs/revisions.md): the turns count down with a critique and no
score, the last one pays the last painting plus the improvement bonus, a lost painting makes the episode None,
every turn paints with the episode's seed, bad settings are refused, an episode without revisions is unchanged,
and TRL's tool env reads critiques (and the painting) and never the reward.

Few real renders: one sketch at one seed per test, the rest from the render cache."""

from __future__ import annotations

import json
import re

import httpx
import pytest
from PIL import Image

from tests.conftest import fresh_seed, sketch
from tests.env.test_critique import assert_speaks_only_of_the_painting
from watercolour_env.client import WatercolourEnv
from watercolour_env.models import WatercolourAction
from watercolour_env.tool_env import IMAGE_SIDE, WatercolourToolEnv

REFUSAL = "I'm sorry, I can't paint that."  # refused by the gate at once: a real 0
PAINTING = sketch("two-washes.js")
GATE_AND_LENGTH = {"gate": 0.5, "length": 0.5, "judge": 0.0, "hps": 0.0}


def no_numbers_of(reward: float, text: str) -> None:
    for shown in (f"{reward:.2f}", f"{reward:.3f}", f"{reward:.1%}", str(reward)):
        assert shown not in text


async def test_revisions_count_down_with_critiques_and_the_last_turn_pays_last_plus_bonus(server_url):
    seed = fresh_seed()
    async with WatercolourEnv(base_url=server_url) as env:
        # Without revisions, exactly as before: one step, done, the reward, none of the revision fields.
        await env.reset(seed=seed, options={"subject": "a fern", "weights": GATE_AND_LENGTH})
        single = await env.step(WatercolourAction(reply=PAINTING))
        alone = single.reward
        assert single.done and alone > 0 and single.observation.breakdown.total == alone
        observed = single.observation
        assert (observed.revisions_left, observed.critique, observed.first_reward) == (None, None, None)

        options = {"subject": "a fern", "weights": GATE_AND_LENGTH, "revisions": 2, "revision_bonus": 0.5}
        await env.reset(seed=seed, options=options)
        turns = [
            await env.step(WatercolourAction(reply=REFUSAL)),
            await env.step(WatercolourAction(reply=PAINTING, include_png=True)),
            await env.step(WatercolourAction(reply=PAINTING)),  # the same render again, from the cache
        ]
        state = await env.state()
    assert [turn.done for turn in turns] == [False, False, True]
    assert [turn.observation.revisions_left for turn in turns] == [2, 1, 0]
    for turn in turns[:2]:  # mid-episode: no reward, no breakdown, a critique
        assert turn.reward is None and turn.observation.reward is None and turn.observation.breakdown is None
        assert turn.observation.first_reward is None
    assert turns[0].observation.critique.startswith("The sketch did not pass the gate")
    assert turns[1].observation.render.png_base64 and turns[2].observation.render.png_base64 is None
    assert turns[1].observation.critique == turns[2].observation.critique  # the same render, the same words
    assert "Paint covers" in turns[1].observation.critique
    for turn in turns:
        assert_speaks_only_of_the_painting(turn.observation.critique)
        no_numbers_of(alone, turn.observation.critique)
    last = turns[2]
    assert last.observation.breakdown.total == alone  # the last painting's own breakdown
    assert last.observation.first_reward == 0.0  # the first failed the gate: a real 0
    assert last.reward == pytest.approx(alone + 0.5 * (alone - 0.0))
    assert state.seed == seed and state.step_count == 3 and state.revisions == 2


async def test_a_lost_painting_makes_the_episode_none_and_a_turn_after_the_last_is_refused(dead_scorer_env_url):
    """The scorer is weighted but down: a passed painting's reward is ours to lose (None). Lost first, a gate failure
    after: the episode is None, never 0; and every turn keeps the episode's seed."""
    seed = fresh_seed()
    async with WatercolourEnv(base_url=dead_scorer_env_url) as env:
        await env.reset(seed=seed, options={"revisions": 1, "revision_bonus": 1.0})
        with pytest.raises(RuntimeError, match="VALIDATION_ERROR"):  # a turn may not choose another seed
            await env.step(WatercolourAction(reply=REFUSAL, seed=seed + 1))
        first = await env.step(WatercolourAction(reply=PAINTING, seed=seed))
        last = await env.step(WatercolourAction(reply=REFUSAL))
        assert not first.done and first.reward is None and first.observation.status == "passed"
        assert last.done and last.reward is None and last.observation.breakdown.total == 0.0
        assert re.search(r"painting 1: no score for hps", last.observation.unavailable_reason)
        with pytest.raises(RuntimeError, match="VALIDATION_ERROR"):  # no revisions remain
            await env.step(WatercolourAction(reply=REFUSAL))
        assert (await env.state()).step_count == 2  # neither refused turn painted


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ('{"revisions": 9}', "less than or equal to 8"),
        ('{"revisions": -1}', "greater than or equal to 0"),
        ('{"revisions": 1.5}', "valid integer"),
        ('{"revision_bonus": NaN}', "finite number"),
        ('{"revision_bonus": 11}', "less than or equal to 10"),
        ('{"revision_bonus": -0.1}', "greater than or equal to 0"),
    ],
)
def test_bad_revision_settings_are_refused_with_the_reason(server_url, options, reason):
    body = f'{{"seed": 1, "options": {options}}}'  # raw: NaN is no JSON an encoder writes
    answer = httpx.post(f"{server_url}/reset", content=body, headers={"content-type": "application/json"})
    assert answer.status_code == 422, answer.text
    assert re.search(reason, json.dumps(answer.json()["detail"]))


def test_evaluate_paints_once_and_refuses_revisions(server_url):
    answer = httpx.post(f"{server_url}/evaluate", json={"replies": [REFUSAL], "options": {"revisions": 1}}, timeout=60)
    assert answer.status_code == 422 and "revisions belong to an episode" in answer.text
    answer = httpx.post(f"{server_url}/evaluate", json={"replies": [REFUSAL], "options": {"revisions": 0}}, timeout=60)
    assert answer.status_code == 200


def test_the_tool_env_reads_critiques_and_the_painting_never_the_reward(server_url):
    seed = fresh_seed()
    with WatercolourToolEnv(server_url, weights=GATE_AND_LENGTH, revisions=1, images=True) as env:
        brief = env.reset(subject="a fern", seed=seed)
        assert "revise" in brief and "1 time(s)" in brief and "the painting itself" in brief
        answer = env.paint(PAINTING)
        image, text = answer
        assert image["type"] == "image" and isinstance(image["image"], Image.Image)
        assert image["image"].size == (IMAGE_SIDE, IMAGE_SIDE) == (256, 256)
        assert text["type"] == "text" and "Paint covers" in text["text"] and "Revisions left: 1." in text["text"]
        assert_speaks_only_of_the_painting(text["text"])
        last = env.paint(REFUSAL)
        assert isinstance(last, str) and "failed the gate" in last and "no revisions remain" in last
        painted = env._env.state().step_count
        assert "No revisions remain" in env.paint(PAINTING) and env._env.state().step_count == painted  # not repainted
        assert env.get_reward() == 0.0  # the last painting failed the gate: no bonus set, the last counts
        no_numbers_of(0.0, text["text"])

    # Text only, and a rollout that stops early: its last painting is handed in for the revisions left.
    with (
        WatercolourToolEnv(server_url, weights=GATE_AND_LENGTH, revisions=2) as env,
        WatercolourToolEnv(server_url, weights=GATE_AND_LENGTH) as single,
    ):
        single.reset(subject="a fern", seed=seed)
        single.paint(PAINTING)
        env.reset(subject="a fern", seed=seed)
        answer = env.paint(PAINTING)
        assert isinstance(answer, str) and "Revisions left: 2." in answer
        no_numbers_of(single.get_reward(), answer)
        assert env.get_reward() == single.get_reward() > 0
        assert env._env.state().step_count == 3 and env.get_reward() == single.get_reward()


def test_a_painting_lost_mid_episode_makes_it_none_and_the_next_goes_on_in_the_same_episode(server_url):
    """A painting the client stopped waiting for is ours: the episode is None, never 0. The next painting begins the
    same episode again (subject, seed, weights) on a fresh socket, with the paintings that remain, and is critiqued."""
    hanging = PAINTING.replace("brush.noStroke();", "while (true) {} brush.noStroke();")  # drawn until the deadline
    seed = fresh_seed()
    with WatercolourToolEnv(server_url, weights=GATE_AND_LENGTH, revisions=1, message_timeout_s=3.0) as env:
        env.reset(subject="a fern leaf", seed=seed)
        answer = env.paint(hanging)
        assert "not held against you" in answer and "Revisions left: 1." in answer and env.get_reward() is None
        answer = env.paint(REFUSAL)
        assert "failed the gate" in answer and "no revisions remain" in answer
        assert env.get_reward() is None
        held = env._env.state()
    assert (held.subject, held.seed, held.revisions, held.step_count) == ("a fern leaf", seed, 0, 1)
    assert held.weights.model_dump() == GATE_AND_LENGTH

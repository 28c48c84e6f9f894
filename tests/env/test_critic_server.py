"""The VLM critic in a real environment (docs/revisions.md, "The VLM critic"): a revising episode whose judge faces the
bundled pool's references, and whose critic is a local server speaking the chat-completions protocol. Every call the
critic made, captured as sent, holds the painting and none of the pool's names, tiers, images or the episode's scores;
a critic that fails leaves the rules' critique with the reason and the reward untouched; a painting seen before is
critiqued from the cache; the last painting, whose critique no painter reads, is not sent. Two real renders."""

from __future__ import annotations

import json

import pytest

from tests.conftest import BUNDLED_POOL, env_server, fresh_seed, sketch
from tests.env.test_critique import assert_speaks_only_of_the_painting
from tests.env.test_revisions import no_numbers_of
from tests.pictures import b64
from watercolour_env.client import WatercolourEnv
from watercolour_env.critic import CRITIC_VERSION
from watercolour_env.models import WatercolourAction
from watercolour_harness.scripted_http import ScriptedServer

SAID = "Soft green washes; the fronds blur into one another. Darken the stems with a second glaze."
PAINTING, OTHER = sketch("two-washes.js"), sketch("peach-bloom-small.js")


@pytest.fixture(scope="module")
def critic_env():
    """The first call answers; every later one is a 500, so the critic's deadline (3 s) passes mid-retry."""
    answer = {"object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": SAID}}]}
    with ScriptedServer([(200, answer, 0), (500, {"error": "overloaded"}, 0)]) as critic:
        settings = {
            "WATERCOLOUR_BROWSERS": "1",
            "WATERCOLOUR_CRITIC": "vlm",
            "WATERCOLOUR_CRITIC_BASE_URL": critic.url,
            "WATERCOLOUR_CRITIC_MODEL": "critic-test",
            "WATERCOLOUR_CRITIC_TIMEOUT_S": "3",
            "HF_TOKEN": "hf_critic_test",
            "WATERCOLOUR_JUDGE": "offline",  # the judge faces the pool's references in the same turns
            "WATERCOLOUR_POOL_PATH": str(BUNDLED_POOL),
            "WATERCOLOUR_WEIGHTS": "gate=0.1,length=0.1,judge=0.8,hps=0",
        }
        with env_server(**settings) as url:
            yield url, critic


async def test_the_critic_sees_the_painting_never_the_pool_and_its_failure_costs_the_reward_nothing(critic_env):
    url, critic = critic_env
    async with WatercolourEnv(base_url=url) as env:
        await env.reset(seed=fresh_seed(), options={"subject": "a fern", "revisions": 3})
        first = await env.step(WatercolourAction(reply=PAINTING, include_png=True))
        asked = len(critic.requests)
        second = await env.step(WatercolourAction(reply=OTHER))  # the critic now answers 500 until its deadline
        failed = len(critic.requests)
        third = await env.step(WatercolourAction(reply=PAINTING))  # the first painting again: its critique is cached
        last = await env.step(WatercolourAction(reply=OTHER))  # the last: its critique is the rules', the critic not asked
    said, lost, again, ended = first.observation, second.observation, third.observation, last.observation

    assert (said.critique, said.critique_source, said.critique_version) == (SAID, "vlm", f"{CRITIC_VERSION}:critic-test")
    assert said.measured_critique.startswith("The sketch passed the gate.") and said.critique_fallback_reason is None
    assert asked == 1 and failed > asked  # the 500s were retried, then the deadline passed

    assert (lost.critique_source, lost.critique) == ("rules", lost.measured_critique)
    assert "Paint covers" in lost.critique and lost.critique_fallback_reason == "no critique within 3 s"
    assert lost.unavailable_reason is None and not second.done  # the painting is not lost: only its critic's words

    assert (again.critique, again.critique_source) == (SAID, "vlm") and len(critic.requests) == failed
    assert (ended.critique_source, ended.measured_critique, ended.critique_fallback_reason) == ("rules", None, None)
    assert "Paint covers" in ended.critique and len(critic.requests) == failed
    assert last.done and last.reward is not None and ended.breakdown.judge is not None  # judged against the pool

    pool_images = [b64(image.read_bytes()) for image in (BUNDLED_POOL / "images").glob("*.png")]
    references = [c["reference_id"] for c in ended.breakdown.details["judge"]["comparisons"]]
    for request in critic.requests:
        assert request["headers"]["authorization"] == "Bearer hf_critic_test"
        sent = json.dumps(request["body"])
        assert not [image for image in pool_images if image in sent]  # no reference went as an image
        [message] = request["body"]["messages"]
        images = [part["image_url"]["url"] for part in message["content"] if part["type"] == "image_url"]
        [text] = [part["text"] for part in message["content"] if part["type"] == "text"]
        assert len(images) == 1 and "a fern" in text
        assert_speaks_only_of_the_painting(text)  # no pool name, tier or coverage figure, no word of the outcome
        assert not [reference for reference in references if reference in text]
        for figure in (last.reward, ended.breakdown.judge, ended.breakdown.total):
            no_numbers_of(figure, text)
    assert critic.requests[0]["body"]["messages"][0]["content"][0]["image_url"]["url"].endswith(said.render.png_base64)

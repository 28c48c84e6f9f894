"""The HPSv3 term through the real scoring service, and the rule that a weighted
term that cannot answer makes the reward unavailable instead of smaller."""

import httpx
import pytest

from tests.conftest import fresh_seed, running_service, sketch
from watercolour_harness.processes import free_port
from watercolour_harness.scripted_http import ScriptedServer
from watercolour_shared.env_client import EnvHttpClient
from watercolour_shared.render_wire import EpisodeOptions
from watercolour_shared.reward import MixWeights, preset

REFUSAL = "I would rather not paint today."


async def test_hps_only_mix_scores_through_the_scorer(env_with_scorer_url):
    async with EnvHttpClient(env_with_scorer_url) as client:
        passed, refused = await client.evaluate([sketch("two-washes.js"), REFUSAL], seed=fresh_seed())
    assert passed.reward.hps is not None and 0 < passed.reward.hps < 1
    assert passed.reward.judge is None  # weight 0: never computed
    assert passed.reward.total == pytest.approx(0.05 + 0.05 * passed.reward.length + 0.90 * passed.reward.hps)
    assert refused.reward.total == 0.0 and refused.reward.hps is None  # a failed gate costs no scoring


async def test_ready_says_which_terms_are_configured_and_reachable(env_with_scorer_url):
    answer = httpx.get(f"{env_with_scorer_url}/ready")
    assert answer.status_code == 200  # hps-only: the one model term it weighs answers
    assert answer.json()["terms_configured"] == {"judge": False, "hps": True}
    assert answer.json()["terms_reachable"] == {"judge": False, "hps": True}


async def test_a_judge_weight_without_a_judge_makes_the_reward_unavailable(env_with_scorer_url):
    async with EnvHttpClient(env_with_scorer_url) as client:
        [item] = await client.evaluate(
            [sketch("two-washes.js")], seed=fresh_seed(), options=EpisodeOptions(weights=preset("hps-led"))
        )
    assert item.reward.hps is not None
    assert item.reward.total is None and "judge" in item.reward.unavailable_reason


async def test_a_scorer_that_is_down_makes_the_hps_reward_unavailable_never_zero():
    settings = {
        "WATERCOLOUR_BROWSERS": "1",
        "WATERCOLOUR_SCORER_URL": f"http://127.0.0.1:{free_port()}",
        "WATERCOLOUR_SCORER_TIMEOUT_S": "2",
        "WATERCOLOUR_MIX": "hps-only",
    }
    with running_service("watercolour_env.server.app", settings, "/health") as url:
        down = httpx.get(f"{url}/ready", timeout=30)
        assert down.status_code == 503 and down.json()["terms_reachable"]["hps"] is False
        async with EnvHttpClient(url) as client:
            [item] = await client.evaluate([sketch("two-washes.js")], seed=fresh_seed())
            [gate_only] = await client.evaluate(
                [sketch("two-washes.js")], options=EpisodeOptions(weights=MixWeights(gate=1, length=0, judge=0, hps=0))
            )
    assert item.render.status == "passed"
    assert item.reward.total is None and "hps" in item.reward.unavailable_reason
    assert gate_only.reward.total == pytest.approx(1.0)  # weight 0: the dead scorer is never asked


async def test_a_scorer_answering_nonsense_makes_the_term_unavailable_not_the_group():
    with ScriptedServer([(200, {"unexpected": "shape"}, 0)]) as scorer:
        settings = {"WATERCOLOUR_BROWSERS": "1", "WATERCOLOUR_SCORER_URL": scorer.url, "WATERCOLOUR_MIX": "hps-only"}
        with running_service("watercolour_env.server.app", settings, "/health") as url:
            async with EnvHttpClient(url) as client:
                passed, refused = await client.evaluate([sketch("two-washes.js"), REFUSAL], seed=fresh_seed())
    assert passed.render.status == "passed"
    assert passed.reward.total is None and "hps" in passed.reward.unavailable_reason
    assert "ValidationError" in passed.reward.details["hps"]["error"]
    assert refused.reward.total == 0.0

"""The whole reward through real HTTP: real renders, the heuristic scorer service,
the offline judge on the bundled pool, and the judge protocol against a local
server that speaks chat completions."""

import httpx
import pytest

from tests.conftest import BUNDLED_POOL, fresh_seed, running_service, sketch
from watercolour_harness.scripted_http import ScriptedServer
from watercolour_shared.env_client import EnvHttpClient
from watercolour_shared.render_wire import EpisodeOptions
from watercolour_shared.reward import preset

GROUP = [sketch("two-washes.js"), sketch("two-washes.js").replace("'#b83b5e'", "'#3b5eb8'"), "no sketch, sorry"]


def expected_total(reward) -> float:
    w = reward.weights
    return w.gate + w.length * reward.length + w.judge * reward.judge + w.hps * reward.hps


async def test_judge_led_mix_adds_every_term(full_reward_env_url):
    async with EnvHttpClient(full_reward_env_url) as client:
        results = await client.evaluate(GROUP, seed=fresh_seed())
    first, second, refused = (item.reward for item in results)
    for reward in (first, second):
        assert reward.judge is not None and reward.hps is not None
        assert reward.total == pytest.approx(expected_total(reward))
        judged = reward.details["judge"]
        assert judged["judge"] == "offline-judge"
        assert judged["pool"] == str(BUNDLED_POOL)  # which references a verdict came from
        assert judged["ms"] > 0 and reward.details["hps"]["ms"] > 0
        assert sorted(c["tier"] for c in judged["comparisons"]) == ["love", "love", "okay", "okay"]
        assert all(c["candidate_as_a"]["reason"] for c in judged["comparisons"])
    same_step = [[c["reference_id"] for c in r.details["judge"]["comparisons"]] for r in (first, second)]
    assert same_step[0] == same_step[1]  # one step, one set of references
    assert refused.total == 0.0 and refused.details == {}


async def test_hps_only_makes_no_judge_calls(full_reward_env_url):
    async with EnvHttpClient(full_reward_env_url) as client:
        [item] = await client.evaluate(GROUP[:1], seed=fresh_seed(), options=EpisodeOptions(weights=preset("hps-only")))
    assert item.reward.judge is None and "judge" not in item.reward.details
    assert item.reward.total == pytest.approx(0.05 + 0.05 * item.reward.length + 0.90 * item.reward.hps)


async def test_health_and_ready_list_both_terms(full_reward_env_url):
    ready = httpx.get(f"{full_reward_env_url}/ready")
    assert ready.status_code == 200 and ready.json()["terms_reachable"] == {"judge": True, "hps": True}
    health = httpx.get(f"{full_reward_env_url}/health").json()
    assert health["terms_configured"] == {"judge": True, "hps": True}
    assert health["terms"]["judge"]["pool"] == str(BUNDLED_POOL)
    assert health["terms"]["judge"]["references"] == 4 and sum(health["terms"]["judge"]["tiers"].values()) > 0


async def test_an_episode_can_ask_for_fewer_references(full_reward_env_url):
    async with EnvHttpClient(full_reward_env_url) as client:
        [item] = await client.evaluate(GROUP[:1], seed=fresh_seed(), options=EpisodeOptions(references=2))
    assert sorted(c["tier"] for c in item.reward.details["judge"]["comparisons"]) == ["love", "okay"]


def serving(settings: dict[str, str]):
    return running_service("watercolour_env.server.app", settings, "/health")


def router_env(judge_url: str) -> dict[str, str]:
    return {
        "WATERCOLOUR_BROWSERS": "1",
        "WATERCOLOUR_JUDGE": "router",
        "WATERCOLOUR_JUDGE_BASE_URL": judge_url,
        "HF_TOKEN": "hf_test",
        "WATERCOLOUR_POOL_PATH": str(BUNDLED_POOL),
        "WATERCOLOUR_WEIGHTS": "gate=0.05,length=0.05,judge=0.6,hps=0",
    }


async def test_a_judge_that_always_picks_a_splits_every_reference():
    verdict = {"choices": [{"message": {"content": '{"winner": "A", "reason": "the first one"}'}}]}
    with (
        ScriptedServer([(200, verdict, 0)]) as judge,
        running_service("watercolour_env.server.app", router_env(judge.url), "/health") as url,
    ):
        async with EnvHttpClient(url) as client:
            [item] = await client.evaluate(GROUP[:1], seed=fresh_seed())
        calls = len(judge.requests)
    assert item.reward.judge == 0.5  # position bias: every reference split
    assert item.reward.details["judge"]["order_agreement"] == 0.0
    assert calls == 8  # 4 references x 2 orders
    assert item.reward.total == pytest.approx(0.05 + 0.05 * item.reward.length + 0.60 * 0.5)


async def test_a_judge_without_quota_makes_the_reward_unavailable_never_zero():
    no_quota = {"error": "You have exceeded your monthly included credits"}
    with ScriptedServer([(402, no_quota, 0)]) as judge, serving(router_env(judge.url)) as url:
        async with EnvHttpClient(url) as client:
            [item] = await client.evaluate(GROUP[:1], seed=fresh_seed())
        calls = len(judge.requests)
    assert item.render.status == "passed"
    assert item.reward.judge is None and item.reward.total is None
    assert "judge" in item.reward.unavailable_reason
    assert calls == 8  # a 402 is never retried

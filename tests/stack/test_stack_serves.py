"""The CPU stack as a user runs it: render, gate and reward through the containers, cache shared by replicas."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import ROOT, fresh_seed
from watercolour_shared.env_client import EnvHttpClient
from watercolour_shared.render_wire import EpisodeOptions
from watercolour_shared.reward import preset

FLOWER = (ROOT / "examples" / "flower.js").read_text()
# A group of 8 as GRPO sends it: the flower in its own colours, and one reply with no sketch at all.
PETALS = ("#f58d62", "#e07a5f", "#f2cc8f", "#81b29a", "#c97b84", "#d4a373", "#a8dadc")
GROUP = [f"```javascript\n{FLOWER.replace('#f58d62', petal)}\n```" for petal in PETALS] + ["I would rather not paint today."]


def mixed_total(reward) -> float:
    w = reward.weights
    return w.gate * reward.gate + w.length * reward.length + w.judge * reward.judge + w.hps * reward.hps


def test_the_flower_renders_and_passes_the_gate(env_url):
    # Without a GPU the image's Mesa draws WebGL: llvmpipe, the faster CPU path (docs/rendering.md).
    webgl = httpx.get(f"{env_url}/health", timeout=5).json()["webgl"]
    assert webgl["mode"] == "llvmpipe" and "llvmpipe" in webgl["renderer"]
    answer = httpx.post(f"{env_url}/render", json={"reply": GROUP[0], "seed": fresh_seed()}, timeout=300).json()
    assert answer["status"] == "passed", answer.get("violations")
    assert answer["paint_fraction"] > 0.02 and answer["png_base64"]
    refused = httpx.post(f"{env_url}/render", json={"reply": "```js\nfetch('http://redis:6379')\n```", "seed": 1}, timeout=60)
    assert refused.json()["status"] == "failed"


@pytest.fixture(scope="module")
def group_seed() -> int:
    return fresh_seed()


async def test_a_judge_led_group_has_every_term_and_adds_up(env_url, group_seed):
    assert len(set(GROUP)) == 8
    async with EnvHttpClient(env_url) as client:
        results = await client.evaluate(GROUP, seed=group_seed, options=EpisodeOptions(weights=preset("judge-led")))
    painted, refused = [item.reward for item in results[:7]], results[7].reward
    for reward in painted:
        assert None not in (reward.total, reward.judge, reward.hps), reward
        assert reward.weights.judge > reward.weights.hps > 0  # the judge-led mix
        assert reward.details["judge"]["judge"] == "offline-judge"
        assert reward.total == pytest.approx(mixed_total(reward))
    assert refused.total == 0.0 and refused.gate == 0.0
    assert not any(item.render.cached for item in results)


async def test_the_same_group_answers_from_the_shared_cache_on_either_replica(replicas, group_seed):
    for replica in replicas:
        async with EnvHttpClient(replica.url) as client:
            results = await client.evaluate(GROUP, seed=group_seed, options=EpisodeOptions(weights=preset("judge-led")))
        assert all(item.render.cached for item in results[:7]), replica

"""Faults a user's stack meets: a replica killed mid-group, Redis restarted mid-run, hostile sketches.
Infrastructure failure comes back unavailable (None, with a reason), never as a 0; nothing a sketch does
takes a container down. Each test leaves two healthy replicas behind."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from tests.conftest import fresh_seed
from tests.stack.compose import ENV_SERVICE, compose, containers, docker, up
from tests.stack.test_stack_serves import GROUP
from watercolour_shared.env_client import EnvHttpClient
from watercolour_shared.redis_cache import RETRY_AFTER_S
from watercolour_shared.render_wire import EpisodeOptions
from watercolour_shared.reward import preset
from watercolour_trainer.replicas import EnvReplicas

OPTIONS = EpisodeOptions(weights=preset("judge-led"))
ENDLESS = "```javascript\nfunction setup() { createCanvas(600, 600, WEBGL); }\nfunction draw() { while (true) {} }\n```"
MEMORY_BOMB = (
    "```javascript\nfunction setup() { createCanvas(600, 600, WEBGL); }\n"
    "function draw() { const hoard = []; while (true) { hoard.push(new Array(1e6).fill(Math.random())); } }\n```"
)


@pytest.fixture
def restore_replicas():
    yield
    up()


async def test_a_killed_replica_costs_its_share_unavailable_and_the_next_group_goes_to_the_survivor(replicas, restore_replicas):
    urls = [replica.url for replica in replicas]
    pool = EnvReplicas(urls, retry_s=3600)  # the dead replica stays out however slow this machine is
    try:
        group = asyncio.create_task(pool.evaluate(GROUP, seed=fresh_seed(), options=OPTIONS))
        await asyncio.sleep(3)  # both shares are rendering
        assert not group.done()
        docker("kill", replicas[1].id)
        outcomes = await group
        survivors = await pool.evaluate(GROUP, seed=fresh_seed(), options=OPTIONS)
    finally:
        await pool.close()
    lost, kept = outcomes[4:], outcomes[:4]
    assert all(o.evaluation is None and urls[1] in o.failure for o in lost), lost
    assert all(o.evaluation is not None and o.evaluation.reward.total is not None for o in kept)
    assert all(o.evaluation is not None for o in survivors)  # all eight went to the replica still up
    assert pool.live() == [0]


async def test_redis_restarted_mid_run_costs_the_cache_never_a_result(env_url):
    """Redis goes down between two groups and comes back before a third: every answer is right, the
    ones without Redis are uncached (with a warning), and the cache is used again once it is back."""
    seeds = [fresh_seed() for _ in range(3)]
    async with EnvHttpClient(env_url) as client:
        before = await client.evaluate(GROUP[:2], seed=seeds[0], options=OPTIONS)
        compose("stop", "redis")
        try:
            without = await client.evaluate(GROUP[:2], seed=seeds[1], options=OPTIONS)
            repeated = await client.evaluate(GROUP[:2], seed=seeds[1], options=OPTIONS)
        finally:
            compose("up", "--detach", "--wait", "redis")
        await asyncio.sleep(RETRY_AFTER_S + 1)  # the environment tries Redis again after this long
        await client.evaluate(GROUP[:1], seed=seeds[2], options=OPTIONS)
        again = await client.evaluate(GROUP[:1], seed=seeds[2], options=OPTIONS)
    assert all(item.reward.total is not None for item in before + without + repeated)
    assert not any(item.render.cached for item in without + repeated)
    assert "Redis cache unavailable" in compose("logs", ENV_SERVICE)
    assert again[0].render.cached


def render_seconds(url: str, reply: str) -> tuple[dict, float]:
    started = time.perf_counter()
    answer = httpx.post(f"{url}/render", json={"reply": reply, "seed": fresh_seed()}, timeout=300).json()
    return answer, time.perf_counter() - started


def test_hostile_sketches_leave_the_container_healthy_and_serving_at_normal_speed(env_url):
    _, before = render_seconds(env_url, GROUP[1])
    for hostile in (ENDLESS, MEMORY_BOMB):
        answer, _ = render_seconds(env_url, hostile)
        assert answer["status"] == "failed", answer
    health = httpx.get(f"{env_url}/health", timeout=5).json()
    assert health["status"] == "healthy" and health["browsers"] == health["idle_browsers"]
    answer, after = render_seconds(env_url, GROUP[1])
    assert answer["status"] == "passed"
    assert after < 2 * before + 5, (before, after)
    assert all(c.inspect()["State"]["Health"]["Status"] == "healthy" for c in containers(ENV_SERVICE))

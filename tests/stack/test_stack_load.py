"""Load through the container, bounded: 64 OpenEnv sessions at once and 200 concurrent renders, all
answered, with /health answering throughout. Identical renders in flight are drawn once."""

from __future__ import annotations

import asyncio
import contextlib
import time

import httpx

from tests.conftest import fresh_seed
from tests.stack.test_stack_serves import GROUP
from watercolour_env.client import WatercolourEnv
from watercolour_env.models import WatercolourAction

SESSIONS = 64
RENDERS = 200


@contextlib.asynccontextmanager
async def health_watch(url: str):
    """Polls /health once a second while the load runs; yields the list of (ok, seconds) answers."""
    answers: list[tuple[bool, float]] = []

    async def poll():
        async with httpx.AsyncClient(timeout=5) as http:
            while True:
                started = time.perf_counter()
                try:
                    ok = (await http.get(f"{url}/health")).status_code == 200
                except httpx.HTTPError:
                    ok = False
                answers.append((ok, time.perf_counter() - started))
                await asyncio.sleep(1)

    watcher = asyncio.create_task(poll())
    try:
        yield answers
    finally:
        watcher.cancel()


async def one_session(url: str, reply: str, seed: int) -> tuple[object, float]:
    started = time.perf_counter()
    async with WatercolourEnv(base_url=url) as env:
        first = await env.reset(subject="a peach hibiscus", seed=seed)
        assert first.observation.status == "ready"
        return await env.step(WatercolourAction(reply=reply)), time.perf_counter() - started


async def test_sixty_four_sessions_at_once_all_get_their_observation(env_url):
    """64 distinct renders queue behind one replica's browsers: the last wait far past OpenEnv's default
    60 s message timeout, which the client no longer keeps."""
    async with health_watch(env_url) as health:
        answers = await asyncio.gather(*(one_session(env_url, GROUP[i % 7], fresh_seed()) for i in range(SESSIONS)))
    results, waits = zip(*answers, strict=True)
    assert [r.observation.status for r in results] == ["passed"] * SESSIONS
    assert all(r.reward is not None for r in results)
    assert health and all(ok for ok, _ in health), health
    slowest_health = max(seconds for _, seconds in health)
    print(f"{SESSIONS} sessions: slowest step after {max(waits):.1f} s; slowest /health {slowest_health:.2f} s")


async def test_two_hundred_concurrent_renders_all_get_an_answer(env_url):
    seed = fresh_seed()
    replies = [GROUP[i % 4] for i in range(RENDERS)]  # 4 distinct sketches: each drawn once, not 50 times
    async with health_watch(env_url) as health, httpx.AsyncClient(timeout=900) as http:
        started = time.perf_counter()
        answers = await asyncio.gather(*(http.post(f"{env_url}/render", json={"reply": r, "seed": seed}) for r in replies))
        elapsed = time.perf_counter() - started
    assert [a.json()["status"] for a in answers] == ["passed"] * RENDERS
    assert health and all(ok for ok, _ in health), health
    print(f"{RENDERS} renders of 4 sketches in {elapsed:.1f} s; slowest /health {max(s for _, s in health):.2f} s")

"""Sessions through the container, at the image's defaults: every kind of session shares one cap, and creates that
nobody uses cannot lock the sockets out for the idle timeout (an hour): they are closed after the grace (60 s)."""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import websockets

from watercolour_env.client import WatercolourEnv
from watercolour_env.models import WatercolourAction

REFUSAL = "I'm sorry, I can't paint that."  # refused by the gate at once: no_sketch


def sessions(url: str) -> dict:
    return httpx.get(f"{url}/health", timeout=10).json()["sessions"]


async def create_over_mcp(http: httpx.AsyncClient, url: str) -> dict:
    """A bare session, made by OpenEnv's HTTP MCP call and then left alone."""
    request = {"jsonrpc": "2.0", "method": "openenv/session/create", "params": {}, "id": 1}
    return (await http.post(f"{url}/mcp", json=request)).json()


async def refused_at_the_cap(url: str) -> bool:
    """Whether a new socket is told the server is at its cap (OpenEnv's frame, sent before any message)."""
    async with websockets.connect(url.replace("http", "ws") + "/ws", ping_interval=None) as socket:
        told = json.loads(await asyncio.wait_for(socket.recv(), timeout=10))
    return told["type"] == "error" and told["data"]["code"] == "CAPACITY_REACHED"


async def test_plain_creates_fill_the_cap_only_until_the_grace(env_url):
    before = sessions(env_url)
    assert before["grace_s"] < before["idle_timeout_s"]
    free = before["max"] - before["active"]
    async with httpx.AsyncClient(timeout=60) as http:
        made = await asyncio.gather(*(create_over_mcp(http, env_url) for _ in range(free)))
        assert all("session_id" in answer.get("result", {}) for answer in made), made[:3]
        assert sessions(env_url)["active"] == before["max"]
        assert "error" in await create_over_mcp(http, env_url)  # one more create is refused at the cap
    assert await refused_at_the_cap(env_url)  # and so is a WebSocket: the creates lock it out, for now

    started = time.monotonic()
    while sessions(env_url)["active"] > before["active"]:  # the grace and a reaper round (a quarter of it), no more
        assert time.monotonic() - started < before["grace_s"] * 1.5 + 15, sessions(env_url)
        await asyncio.sleep(2)
    after = sessions(env_url)
    assert after["expired"]["unused"] - before["expired"]["unused"] >= free
    print(f"{free} unused creates closed {time.monotonic() - started:.0f} s after the cap was full")

    async with WatercolourEnv(base_url=env_url) as env:  # the sockets are served again
        await env.reset(subject="a red poppy")
        answered = await env.step(WatercolourAction(reply=REFUSAL))
    assert answered.observation.status == "failed"

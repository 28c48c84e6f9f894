"""OpenEnv sessions are not held for ever, against real servers: a client that vanishes without closing its socket
is dropped when it misses a WebSocket ping, and a live but idle session is closed after the idle timeout. /health
counts them."""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest
import websockets

from tests.conftest import env_server
from watercolour_env.client import WatercolourEnv
from watercolour_env.models import WatercolourAction


def sessions(url: str) -> dict:
    return httpx.get(f"{url}/health").json()["sessions"]


async def until_no_session(url: str, within_s: float) -> float:
    """Seconds until /health counts no session; fails past `within_s`."""
    start = time.monotonic()
    while sessions(url)["active"]:
        assert time.monotonic() - start < within_s, sessions(url)
        await asyncio.sleep(0.5)
    return time.monotonic() - start


@pytest.fixture(scope="module")
def quick_ping_url():
    with env_server(WATERCOLOUR_BROWSERS="1", WATERCOLOUR_WS_PING_S="1") as url:
        yield url


@pytest.fixture(scope="module")
def quick_idle_url():
    with env_server(WATERCOLOUR_BROWSERS="1", WATERCOLOUR_SESSION_IDLE_TIMEOUT_S="2") as url:
        yield url


async def test_a_client_gone_without_closing_its_socket_frees_its_session(quick_ping_url):
    assert sessions(quick_ping_url) == {"active": 0, "max": 256, "idle_timeout_s": 3600.0}
    socket = await websockets.connect(quick_ping_url.replace("http", "ws") + "/ws", ping_interval=None)
    await socket.send(json.dumps({"type": "reset", "data": {}}))
    assert json.loads(await socket.recv())["type"] == "observation"
    socket.transport.pause_reading()  # a machine gone: the socket stays open, nothing answers the server's pings
    assert sessions(quick_ping_url)["active"] == 1
    assert await until_no_session(quick_ping_url, within_s=10) < 10  # a ping, then a second for the pong: not the hour


async def test_an_idle_session_is_closed_and_its_client_still_answered(quick_idle_url):
    async with WatercolourEnv(base_url=quick_idle_url) as env:
        await env.reset()
        assert sessions(quick_idle_url)["active"] == 1
        await until_no_session(quick_idle_url, within_s=15)  # OpenEnv's reaper looks every 5 s at least
        await env.reset(subject="a fern")  # its socket still open: the client is answered, uncounted
        answered = await env.step(WatercolourAction(reply="I can't paint that."))
    assert answered.observation.subject == "a fern" and answered.observation.status == "failed"

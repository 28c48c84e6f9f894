"""OpenEnv sessions are not held for ever, against real servers: a client that vanishes without closing its socket
is dropped when it misses a WebSocket ping; a live but idle session is closed after the idle timeout, its socket
with it; a session created and never used is closed after the short grace; every kind of session (`/ws`,
`POST /mcp`) counts against one cap; a client gone mid-render costs no traceback. /health counts them."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
import websockets

from tests.conftest import env_server, fresh_seed, sketch
from watercolour_env.client import SessionLost, WatercolourEnv
from watercolour_env.models import WatercolourAction
from watercolour_env.server.sessions import OpenEnvSessions
from watercolour_env.tool_env import WatercolourToolEnv

REFUSAL = "I'm sorry, I can't paint that."  # refused by the gate at once: no_sketch
# Drawn until the render deadline of the server that runs it.
HANGING = sketch("two-washes.js").replace("brush.noStroke();", "while (true) {} brush.noStroke();")


def sessions(url: str) -> dict:
    return httpx.get(f"{url}/health").json()["sessions"]


def ws_url(url: str) -> str:
    return url.replace("http", "ws") + "/ws"


async def until_sessions(url: str, active: int, within_s: float) -> float:
    """Seconds until /health counts `active` sessions; fails past `within_s`."""
    start = time.monotonic()
    while sessions(url)["active"] != active:
        assert time.monotonic() - start < within_s, sessions(url)
        await asyncio.sleep(0.25)
    return time.monotonic() - start


def create_over_mcp(url: str) -> dict:
    """A bare session, made by OpenEnv's HTTP MCP call and then left alone."""
    request = {"jsonrpc": "2.0", "method": "openenv/session/create", "params": {}, "id": 1}
    return httpx.post(f"{url}/mcp", json=request).json()


async def opened(url: str, query: str = "") -> websockets.ClientConnection:
    """A raw socket whose session has answered a reset."""
    socket = await websockets.connect(ws_url(url) + query, ping_interval=None)
    await socket.send(json.dumps({"type": "reset", "data": {"seed": fresh_seed()}}))
    answer = json.loads(await socket.recv())
    assert answer["type"] == "observation", answer
    return socket


async def refused_at_the_cap(url: str) -> bool:
    """Whether a new socket is told the server is at its cap (OpenEnv's frame, sent before any message, then close)."""
    async with websockets.connect(ws_url(url), ping_interval=None) as socket:
        told = json.loads(await asyncio.wait_for(socket.recv(), timeout=5))
    return told["type"] == "error" and told["data"]["code"] == "CAPACITY_REACHED"


class ServerLog:
    """What a server process started by `env_server` writes to its stderr: a pipe nobody reads until it exits, read
    here through /proc (Linux) from the child of this process that listens on the URL's port."""

    def __init__(self, url: str):
        port = urlsplit(url).port
        for proc in Path("/proc").iterdir():
            try:
                ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
                environ = (proc / "environ").read_bytes().split(b"\0")
            except (OSError, ValueError, IndexError):
                continue
            if ppid == os.getpid() and f"WATERCOLOUR_PORT={port}".encode() in environ:
                self._fd = os.open(proc / "fd" / "2", os.O_RDONLY | os.O_NONBLOCK)
                return
        raise RuntimeError(f"no server process of this test listens on port {port}")

    def __del__(self) -> None:
        os.close(self._fd)

    def read(self) -> str:
        """Everything written since the last read."""
        chunks = []
        while True:
            try:
                chunk = os.read(self._fd, 65536)
            except BlockingIOError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks).decode(errors="replace")


@pytest.fixture(scope="module")
def quick_ping_url():
    with env_server(WATERCOLOUR_BROWSERS="1", WATERCOLOUR_WS_PING_S="1") as url:
        yield url


@pytest.fixture(scope="module")
def capped_url():
    """Two sessions at most: a 4 s idle timeout, a 2 s grace for a session never used, a 5 s render deadline."""
    settings = {
        "WATERCOLOUR_BROWSERS": "1",
        "WATERCOLOUR_MAX_SESSIONS": "2",
        "WATERCOLOUR_SESSION_IDLE_TIMEOUT_S": "4",
        "WATERCOLOUR_SESSION_GRACE_S": "2",
        "WATERCOLOUR_RENDER_DEADLINE_S": "5",
    }
    with env_server(**settings) as url:
        yield url


async def test_a_client_gone_without_closing_its_socket_frees_its_session(quick_ping_url):
    health = sessions(quick_ping_url)
    assert {k: health[k] for k in ("active", "max", "idle_timeout_s", "grace_s")} == {
        "active": 0,
        "max": 256,
        "idle_timeout_s": 3600.0,
        "grace_s": 60.0,
    }
    socket = await websockets.connect(ws_url(quick_ping_url), ping_interval=None)
    await socket.send(json.dumps({"type": "reset", "data": {}}))
    assert json.loads(await socket.recv())["type"] == "observation"
    socket.transport.pause_reading()  # a machine gone: the socket stays open, nothing answers the server's pings
    assert sessions(quick_ping_url)["active"] == 1
    assert await until_sessions(quick_ping_url, 0, within_s=10) < 10  # a ping, then a second for the pong: not the hour


async def test_a_reaped_session_is_closed_with_its_socket_and_says_so(capped_url):
    """Two idle sessions under a cap of 2 are closed, sockets and all: a later message is not run, the client is told
    "session expired", and two new sessions fill the cap again (never four live ones)."""
    await until_sessions(capped_url, 0, within_s=15)
    log = ServerLog(capped_url)
    log.read()
    idle = [await opened(capped_url), await opened(capped_url)]
    assert sessions(capped_url)["active"] == 2
    await until_sessions(capped_url, 0, within_s=15)
    for socket in idle:
        told = json.loads(await asyncio.wait_for(socket.recv(), timeout=5))  # the frame sent before the close
        assert told["type"] == "error" and told["data"]["code"] == "SESSION_EXPIRED", told
        assert "session expired" in told["data"]["message"]
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await socket.send(json.dumps({"type": "step", "data": {"reply": REFUSAL}}))
            await asyncio.wait_for(socket.recv(), timeout=5)
        assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (4408, "session expired")
    fresh = [await opened(capped_url), await opened(capped_url)]
    assert await refused_at_the_cap(capped_url)  # the cap holds: a third is refused
    assert sessions(capped_url)["active"] == 2 and sessions(capped_url)["expired"]["idle"] >= 2
    for socket in fresh:
        await socket.close()
    await until_sessions(capped_url, 0, within_s=5)
    assert "Traceback" not in (written := log.read()), written[-3000:]


async def test_the_client_of_a_reaped_session_is_told_and_a_reset_begins_again(capped_url):
    await until_sessions(capped_url, 0, within_s=15)
    async with WatercolourEnv(base_url=capped_url) as env:
        await env.reset(subject="a red poppy", seed=fresh_seed())
        await until_sessions(capped_url, 0, within_s=15)
        # Told either by the error frame or by the 4408 close, whichever the step meets first; never run elsewhere.
        with pytest.raises(SessionLost, match="session is gone .*session expired"):
            await env.step(WatercolourAction(reply=REFUSAL))
        await env.reset(subject="a fern")  # a new socket, a new session, counted
        assert sessions(capped_url)["active"] == 1
        answered = await env.step(WatercolourAction(reply=REFUSAL))
    assert answered.observation.subject == "a fern" and answered.observation.status == "failed"


async def test_an_mcp_socket_never_used_is_closed_after_the_grace(capped_url):
    await until_sessions(capped_url, 0, within_s=15)
    socket = await websockets.connect(capped_url.replace("http", "ws") + "/mcp", ping_interval=None)
    await until_sessions(capped_url, 1, within_s=5)
    told = json.loads(await asyncio.wait_for(socket.recv(), timeout=4))  # within the grace and a round, not 4 s idle
    assert told["error"]["data"]["code"] == "SESSION_EXPIRED", told
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await asyncio.wait_for(socket.recv(), timeout=5)
    assert closed.value.rcvd.code == 4408 and sessions(capped_url)["active"] == 0


def test_a_tool_env_whose_session_expired_paints_in_its_own_episode(capped_url):
    """TRL's tool env idle past the timeout between its reset and its painting: the painting begins the same episode
    again on a new session (subject, seed, weights), never the new session's default one."""
    asyncio.run(until_sessions(capped_url, 0, within_s=15))
    seed, weights = fresh_seed(), {"gate": 0.3, "length": 0.7, "judge": 0.0, "hps": 0.0}
    with WatercolourToolEnv(capped_url, weights=weights) as env:
        env.reset(subject="a fern leaf", seed=seed)
        asyncio.run(until_sessions(capped_url, 0, within_s=15))
        assert "failed the gate" in env.paint(REFUSAL) and env.get_reward() == 0.0
        held = env._env.state()
        assert sessions(capped_url)["active"] == 1
    assert (held.subject, held.seed, held.weights.model_dump()) == ("a fern leaf", seed, weights)


async def test_bare_creates_count_with_sockets_and_are_freed_after_the_grace(capped_url):
    """`POST /mcp` creates and WebSocket sessions share the cap of 2; creates nobody uses are closed after the 2 s
    grace, not the idle timeout, while a socket that used its session (and one attached to a create) is kept."""
    await until_sessions(capped_url, 0, within_s=15)
    first, second = create_over_mcp(capped_url), create_over_mcp(capped_url)
    assert "session_id" in first["result"] and "session_id" in second["result"]
    assert sessions(capped_url)["active"] == 2
    assert "error" in create_over_mcp(capped_url)  # a third create is refused at the cap
    assert await refused_at_the_cap(capped_url)  # and so is a socket: the creates lock it out
    waited = await until_sessions(capped_url, 0, within_s=4)  # the 2 s grace and a reaper round, not the idle 4 s
    assert waited < 4 and sessions(capped_url)["expired"]["unused"] >= 2

    attached_to = create_over_mcp(capped_url)["result"]["session_id"]
    attached = await opened(capped_url, f"?session_id={attached_to}")  # a socket on a create: used, counted once
    own = await opened(capped_url)
    assert sessions(capped_url)["active"] == 2
    await asyncio.sleep(3)  # past the grace: both sessions were used, so both are kept until the idle timeout
    for socket in (attached, own):
        await socket.send(json.dumps({"type": "step", "data": {"reply": REFUSAL}}))
        assert json.loads(await socket.recv())["data"]["observation"]["status"] == "failed"
        await socket.close()
    await until_sessions(capped_url, 0, within_s=15)


async def test_a_client_gone_mid_render_is_counted_without_a_traceback(capped_url):
    await until_sessions(capped_url, 0, within_s=15)
    log = ServerLog(capped_url)
    log.read()
    gone_before = sessions(capped_url)["client_gone"]
    socket = await opened(capped_url)
    await socket.send(json.dumps({"type": "step", "data": {"reply": HANGING, "seed": fresh_seed()}}))
    await asyncio.sleep(1)  # the render has begun
    await socket.close()
    start = time.monotonic()
    while sessions(capped_url)["client_gone"] == gone_before:  # the 5 s render deadline, then its answer finds nobody
        assert time.monotonic() - start < 20, sessions(capped_url)
        await asyncio.sleep(0.25)
    await until_sessions(capped_url, 0, within_s=5)
    written = log.read()
    assert sessions(capped_url)["client_gone"] == gone_before + 1
    assert "Traceback" not in written and "Exception in ASGI application" not in written, written[-3000:]


async def test_a_session_is_never_reaped_under_a_post_mcp_call_naming_it(services):
    """OpenEnv notes a POST /mcp call's use of a session only when the call ends: a call that outlasts the grace (a
    render queued behind others) must not have its session closed under it. The route's handler here is a stand-in
    that holds the call open; the wrapper, the session table and the reaper are the server's own."""
    server = OpenEnvSessions(services)._server
    session_id, _ = await server._create_session()
    release = asyncio.Event()

    async def held_call(scope, receive, send) -> None:
        assert json.loads((await receive())["body"])["params"]["session_id"] == session_id  # the body, replayed
        await release.wait()

    body = json.dumps({"jsonrpc": "2.0", "method": "tools/call", "params": {"session_id": session_id}, "id": 1})
    received = iter([{"type": "http.request", "body": body.encode(), "more_body": False}])
    call = asyncio.create_task(server.watch_calls(held_call)({"type": "http"}, lambda: _next(received), None))
    await asyncio.sleep(0.1)
    long_ago = server.grace_s + server._session_idle_timeout_s + 1
    server._session_info[session_id].last_activity_at -= long_ago
    await server.reap(time.time())
    assert server.held(session_id)  # the call is in flight: not reaped, however long it takes
    release.set()
    await call
    server._session_info[session_id].last_activity_at -= long_ago
    await server.reap(time.time())
    assert not server.held(session_id)  # once it has answered, the session is reaped as any other


async def _next(messages) -> dict:
    return next(messages)

"""Round four's sketch classes through every door a user has: `/evaluate` over HTTP, an OpenEnv WebSocket session
and the TRL tool env, against a real server. Honest idioms pass, a NUL in a comment passes, and a sketch that paints
only in even seconds of the clock gets one verdict on renders seconds apart (the sandbox tests hold the same on
the renderer itself: test_sandbox_idioms.py, test_sandbox_determinism.py)."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
import websockets

from tests.conftest import ROOT, fresh_seed
from tests.env.test_sandbox_world import cheat
from watercolour_env.tool_env import WatercolourToolEnv

EVEN_SECONDS = "if (Date.now() % 2000 < 1000) { brush.fill('#3b5eb8', 200); brush.circle(300, 300, 200); }"
SKETCHES = {
    "honest idioms": (ROOT / "tests" / "env" / "sketches" / "honest-idioms.js").read_text(),
    "a NUL in a comment": cheat("// a note \x00 kept\nbrush.fill('#b83b5e', 200); brush.circle(300, 300, 150);"),
    "the clock's even seconds": cheat(EVEN_SECONDS),
}


def evaluated(url: str, reply: str) -> dict:
    answer = httpx.post(f"{url}/evaluate", json={"replies": [reply], "seed": fresh_seed()}, timeout=120)
    assert answer.status_code == 200, answer.text
    return answer.json()["results"][0]["render"]


@pytest.mark.parametrize("name", SKETCHES)
async def test_every_door_gives_the_same_verdict_on_every_render(server_url, name):
    first = evaluated(server_url, SKETCHES[name])
    await asyncio.sleep(1.3)  # past a second's boundary of the real clock
    second = evaluated(server_url, SKETCHES[name])
    assert first["status"] == second["status"] == "passed", (first["violations"], first["errors"])

    async with websockets.connect(server_url.replace("http", "ws") + "/ws", max_size=2**24) as ws:
        await ws.send(json.dumps({"type": "reset", "data": {"seed": fresh_seed()}}))
        assert json.loads(await ws.recv())["type"] == "observation"
        await ws.send(json.dumps({"type": "step", "data": {"reply": SKETCHES[name]}}))
        stepped = json.loads(await ws.recv())
    assert stepped["data"]["observation"]["status"] == "passed", stepped

    with WatercolourToolEnv(server_url) as env:
        env.reset(subject="a white magnolia", seed=fresh_seed())
        answer = env.paint(SKETCHES[name])
    assert answer.startswith("The sketch passed the gate"), answer

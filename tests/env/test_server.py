"""The environment as a real server process, over real HTTP and WebSockets."""

import asyncio
import json
import os
import subprocess
import sys

import httpx
import pytest
import websockets

from tests.conftest import fresh_seed, running_service, sketch
from watercolour_env.client import WatercolourEnv
from watercolour_env.models import WatercolourAction
from watercolour_harness.scripted_http import LoopbackServer, QuietHandler
from watercolour_shared.env_client import EnvHttpClient
from watercolour_shared.reward import MixWeights, preset

REFUSAL = "I'm sorry, but I can't help with painting that."
MEGABYTE = "function setup() { createCanvas(600, 600, WEBGL); }\n" + "brush.circle(1, 1, 1);\n" * 45000


def recoloured(colour: str) -> str:
    return sketch("two-washes.js").replace("'#b83b5e'", f"'{colour}'")


async def test_health_reports_what_works(server_url):
    health = httpx.get(f"{server_url}/health").json()
    assert health["status"] == "healthy"
    assert health["browsers"] == 2
    assert health["cache"] == "up"
    assert health["terms_configured"] == {"judge": False, "hps": False}
    assert health["default_weights"]["judge"] == 0
    assert "terms_reachable" not in health  # asking the terms is /ready's work
    # No GPU here: auto settles on Mesa's llvmpipe, and the renderer string is the browser's own.
    assert health["webgl"]["requested"] == "auto" and health["webgl"]["mode"] == "llvmpipe"
    assert health["webgl"]["on_gpu"] is False and "llvmpipe" in health["webgl"]["renderer"].lower()


def test_ready_when_the_default_weights_need_no_model_term_and_it_says_what_would_configure_them(server_url):
    answer = httpx.get(f"{server_url}/ready")
    assert answer.status_code == 200
    ready = answer.json()
    assert ready["ready"] is True and ready["reasons"] == []
    assert ready["terms_configured"] == {"judge": False, "hps": False}
    assert "HF_TOKEN" in ready["how_to_configure"]["judge"] and "WATERCOLOUR_SCORER_URL" in ready["how_to_configure"]["hps"]


class CountingScorer(LoopbackServer):
    """A scorer that only answers its /ready probe, counting the calls."""

    def __init__(self):
        self.probes = 0
        counter = self

        class Handler(QuietHandler):
            def do_GET(self):  # noqa: N802 - the http.server API
                counter.probes += 1
                self.send_json(200, {})

        super().__init__(Handler)
        self.start()


def test_health_never_asks_the_terms_and_ready_does():
    scorer = CountingScorer()
    settings = {"WATERCOLOUR_BROWSERS": "1", "WATERCOLOUR_SCORER_URL": scorer.url, "WATERCOLOUR_MIX": "hps-only"}
    try:
        with running_service("watercolour_env.server.app", settings, "/health") as url:
            asked_at_start = scorer.probes
            for _ in range(5):
                assert httpx.get(f"{url}/health").status_code == 200
            assert scorer.probes == asked_at_start
            assert httpx.get(f"{url}/ready").status_code == 200 and scorer.probes == asked_at_start + 1
            scorer.stop()
            down = httpx.get(f"{url}/ready", timeout=30)
            assert httpx.get(f"{url}/health").status_code == 200  # a dead scorer does not make the renderer look sick
    finally:
        scorer.stop()
    assert down.status_code == 503
    assert down.json()["reasons"] == ["the hps term carries weight 0.90 but its backend does not answer now"]


def test_importing_the_server_builds_nothing():
    """Settings that could not build a server (no browsers, a pool behind an unreachable Hub) do not stop an import."""
    env = {**os.environ, "WATERCOLOUR_BROWSERS": "0", "WATERCOLOUR_JUDGE": "offline", "HF_ENDPOINT": "http://127.0.0.1:9"}
    code = "import watercolour_env.server.app as server; print(type(server.app).__name__)"
    imported = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert imported.returncode == 0, imported.stderr[-2000:]
    assert imported.stdout.strip() == "BuiltAtStartup"


async def test_stateless_render(server_url):
    async with EnvHttpClient(server_url) as client:
        result = await client.render(sketch("two-washes.js"), seed=21)
        without_png = await client.render(sketch("two-washes.js"), seed=21, include_png=False)
    assert result.passed and result.png_base64
    assert without_png.cached and without_png.png_base64 is None


async def test_a_group_is_evaluated_together_in_order_and_one_failure_fails_no_other(server_url):
    replies = [recoloured(c) for c in ("#b83b5e", "#3b5eb8", "#5eb83b")]
    replies = [replies[0], REFUSAL, replies[1], "function setup() { createCanvas(600, 600, WEBGL) ", replies[2]]
    async with EnvHttpClient(server_url) as client:
        results = await client.evaluate(replies, seed=31)
    statuses = [item.render.status for item in results]
    assert statuses == ["passed", "failed", "passed", "failed", "passed"]
    assert results[1].render.violations[0].code.value == "no_sketch"
    assert results[3].render.violations[0].code.value == "truncated"
    for item in results:
        expected = 0.05 + 0.05 * item.reward.length if item.render.passed else 0.0
        assert item.reward.total == pytest.approx(expected)


async def test_per_request_weights_apply_without_a_restart(server_url):
    async with EnvHttpClient(server_url) as client:
        from watercolour_shared.render_wire import EpisodeOptions

        explicit = EpisodeOptions(weights=MixWeights(gate=0.5, length=0.5, judge=0, hps=0))
        [scored] = await client.evaluate([sketch("two-washes.js")], seed=41, options=explicit)
        [judged] = await client.evaluate([sketch("two-washes.js")], seed=41, options=EpisodeOptions(weights=preset("judge-led")))
    assert scored.reward.total == pytest.approx(0.5 + 0.5 * scored.reward.length)
    assert judged.reward.total is None
    assert "judge" in judged.reward.unavailable_reason


async def test_openenv_http_reset_and_step(server_url):
    options = {"subject": "a blue iris", "weights": preset("hps-only").model_dump()}
    reset = httpx.post(f"{server_url}/reset", json={"seed": 3, "options": options}).json()
    assert reset["observation"]["prompt"] == "Paint a blue iris in loose watercolour."
    step = httpx.post(f"{server_url}/step", json={"action": {"reply": sketch("two-washes.js")}}, timeout=60).json()
    assert step["done"] is True
    assert step["observation"]["status"] == "passed"
    assert step["reward"] == pytest.approx(0.05)  # two-washes is below the length term's 150 tokens


async def test_openenv_session_keeps_its_episode_settings(server_url):
    async with WatercolourEnv(base_url=server_url) as env:
        await env.reset(
            seed=5, options={"subject": "a white magnolia", "weights": {"gate": 1, "length": 0, "judge": 0, "hps": 0}}
        )
        result = await env.step(WatercolourAction(reply=sketch("two-washes.js"), include_png=True))
        state = await env.state()
    assert result.reward == pytest.approx(1.0)
    assert result.observation.render.png_base64
    assert state.subject == "a white magnolia" and state.step_count == 1
    async with WatercolourEnv(base_url=server_url) as env:
        await env.reset(seed=5, options={"weights": preset("judge-led").model_dump()})
        judged = await env.step(WatercolourAction(reply=sketch("two-washes.js")))
    assert judged.reward is None
    assert "judge" in judged.observation.unavailable_reason


async def test_64_concurrent_sessions_are_served(server_url):
    ws_url = server_url.replace("http", "ws") + "/ws"

    async def session(index: int) -> str:
        async with websockets.connect(ws_url, max_size=2**24) as ws:
            await ws.send(json.dumps({"type": "reset", "data": {"seed": index}}))
            answer = json.loads(await ws.recv())
            await ws.send(json.dumps({"type": "close"}))
            return answer["type"]

    answers = await asyncio.gather(*(session(i) for i in range(64)))
    assert answers == ["observation"] * 64


BAD_REPLIES = {
    "empty": ("", "no_sketch"),
    "binary": ("\x00\x9f\x92\x96\ufffd\x01" * 300, "no_sketch"),
    "a megabyte of code": (MEGABYTE, "oversized"),
    "refusal": (REFUSAL, "no_sketch"),
}


@pytest.mark.parametrize("name", BAD_REPLIES)
def test_bad_replies_get_a_clear_failure(server_url, name):
    reply, code = BAD_REPLIES[name]
    answer = httpx.post(f"{server_url}/render", json={"reply": reply}, timeout=30)
    assert answer.status_code == 200
    assert answer.json()["status"] == "failed"
    assert answer.json()["violations"][0]["code"] == code


MALFORMED = {
    "not-json": (b"not json", 422),
    "missing-reply": (b"{}", 422),
    "wrong-type": (b'{"reply": 5}', 422),
    "negative-seed": (b'{"reply": "x", "seed": -1}', 422),
    "over-2MB": (json.dumps({"reply": "x" * 2_000_001}).encode(), 422),
    "invalid-utf8": (b'{"reply": "function setup() { \xff\xfe }"}', 400),
}


@pytest.mark.parametrize("name", MALFORMED)
def test_malformed_requests_are_refused_with_a_reason(server_url, name):
    body, status = MALFORMED[name]
    answer = httpx.post(f"{server_url}/render", content=body, headers={"content-type": "application/json"}, timeout=30)
    assert answer.status_code == status
    assert answer.json()["detail"]


async def test_200_concurrent_requests_all_answered_and_the_server_stays_healthy(server_url):
    async with httpx.AsyncClient(base_url=server_url, timeout=120) as http:
        warm = await http.post("/render", json={"reply": sketch("two-washes.js"), "seed": 51})
        assert warm.json()["status"] == "passed"
        bad = [reply for reply, _ in BAD_REPLIES.values()]
        bodies = [{"reply": sketch("two-washes.js"), "seed": 51} if i % 2 else {"reply": bad[i % 4]} for i in range(200)]
        answers = await asyncio.gather(*(http.post("/render", json=body) for body in bodies))
        assert [a.status_code for a in answers] == [200] * 200
        assert all(a.json()["status"] == ("passed" if i % 2 else "failed") for i, a in enumerate(answers))
        health = await http.get("/health")
        fresh = await http.post("/render", json={"reply": recoloured("#2a9d8f"), "seed": fresh_seed()})
    assert health.json()["status"] == "healthy"
    assert fresh.json()["status"] == "passed" and not fresh.json()["cached"]


async def test_a_hanging_sketch_does_not_stop_other_renders(server_url):
    loop = sketch("two-washes.js").replace("brush.noStroke();", "while (true) {} brush.noStroke();")
    async with httpx.AsyncClient(base_url=server_url, timeout=120) as http:
        hanging = asyncio.ensure_future(http.post("/render", json={"reply": loop, "seed": fresh_seed()}))
        await asyncio.sleep(0.5)
        normal = await http.post("/render", json={"reply": recoloured("#e9c46a"), "seed": fresh_seed()})
        assert normal.json()["status"] == "passed"
        assert not hanging.done()
        hung = await hanging
    assert hung.json()["violations"][0]["code"] == "render_timeout"

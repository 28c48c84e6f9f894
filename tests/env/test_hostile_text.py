"""Text a sketch controls, through the real HTTP server: lone surrogates, NULs, invalid UTF-8 and
huge strings in the code, in names the gate reports, in errors the page reports. One rollout's
failure never changes another's answer, and nothing a sketch writes turns its 0 into `unavailable`."""

import json

import httpx
import pytest

from tests.conftest import fresh_seed, sketch
from tests.env.test_sandbox_world import PAINT_FIRST, cheat

HONEST = sketch("two-washes.js")
# Each reply is source text: "\\uD83D" is an escape the sketch's own code decodes, "\ud83d" a raw one.
HOSTILE = {
    "a lone surrogate in a member name the gate reports": cheat(PAINT_FIRST + "brush['\\uD83D' + 'x'];"),
    "a lone surrogate in a name the gate decodes": cheat(PAINT_FIRST + "brush['\\uD83D']();"),
    "a lone surrogate in a rejection": cheat(PAINT_FIRST + "Promise.reject(new TypeError('\\uD83D'));"),
    "a lone surrogate in a thrown error": cheat("throw new TypeError('\\uDFFF');"),
    "a raw lone surrogate in the code": cheat(PAINT_FIRST + "const petal = '\ud83d';"),
    "a NUL in the code and an error": cheat(PAINT_FIRST + "const n = '\x00'; Promise.reject(new TypeError('a\\u0000b'));"),
    "a huge error message": cheat(PAINT_FIRST + "Promise.reject(new TypeError('w'.repeat(30_000_000)));"),
    "a huge name the gate reports": cheat(PAINT_FIRST + f"brush.{'q' * 150_000}();"),
    "a reply past the gate's size limit": "x" * 1_900_000,
}


def post(url: str, body: dict, timeout: float) -> httpx.Response:
    # JSON escapes a lone surrogate (`"\\ud83d"`), as a client in any language may send it; httpx's own
    # encoder would refuse to send it at all.
    return httpx.post(url, content=json.dumps(body).encode(), headers={"content-type": "application/json"}, timeout=timeout)


def evaluate(url: str, replies: list[str], seed: int) -> list[dict]:
    answer = post(f"{url}/evaluate", {"replies": replies, "seed": seed}, timeout=300)
    assert answer.status_code == 200, answer.text[:500]
    return answer.json()["results"]


def test_hostile_text_in_a_group_changes_no_other_rollout(server_url):
    seed = fresh_seed()
    [alone] = evaluate(server_url, [HONEST], seed)
    assert alone["reward"]["total"] > 0
    replies = [HONEST, *HOSTILE.values(), HONEST]
    for attempt in ("rendered", "cached"):  # the second answer comes from the cache the first one wrote
        results = evaluate(server_url, replies, seed)
        assert results[0]["reward"]["total"] == pytest.approx(alone["reward"]["total"]), attempt
        assert results[-1]["reward"]["total"] == pytest.approx(alone["reward"]["total"]), attempt
        for name, item in zip(HOSTILE, results[1:-1], strict=True):
            assert item["render"]["status"] != "unavailable", (attempt, name, item["render"].get("unavailable_reason"))
            assert item["reward"]["total"] is not None, (attempt, name)
            assert "malformed_report" not in {v["code"] for v in item["render"]["violations"]}, (attempt, name)


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_render_answers_with_a_verdict(server_url, name):
    answer = post(f"{server_url}/render", {"reply": HOSTILE[name], "seed": fresh_seed()}, timeout=120)
    assert answer.status_code == 200, answer.text[:500]
    result = answer.json()
    assert result["status"] in ("passed", "failed")
    assert all(len(v["message"]) < 400 for v in result["violations"])
    assert all(len(line) < 600 for line in result["errors"])


def test_invalid_utf8_in_a_group_is_refused_and_the_server_stays_healthy(server_url):
    body = b'{"replies": ["function setup() { \xff\xfe }", "x"], "seed": 1}'
    answer = httpx.post(f"{server_url}/evaluate", content=body, headers={"content-type": "application/json"}, timeout=30)
    assert answer.status_code == 400 and answer.json()["detail"]
    assert httpx.get(f"{server_url}/health", timeout=10).json()["status"] == "healthy"


def test_a_refused_request_is_answered_without_echoing_it(server_url):
    # Too long, with a lone surrogate at its end and one in a field name: a short, valid 422 all the same.
    body = {"reply": "x" * 2_000_001 + "\ud83d", "seed": 1, "\udc00": 1}
    answer = post(f"{server_url}/render", body, timeout=60)
    assert answer.status_code == 422
    assert len(answer.content) < 2_000 and answer.json()["detail"][0]["loc"][-1] == "reply"
    assert httpx.get(f"{server_url}/health", timeout=10).json()["status"] == "healthy"

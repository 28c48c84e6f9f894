"""Bad episode options, against a real server: every route that takes them (`/evaluate`, OpenEnv's HTTP `/reset`
and its WebSocket) refuses each one with the reason, and the service, and the socket's session, go on answering.
The bodies are sent as raw text: Python's JSON reader takes `Infinity` and `NaN`, which no JSON encoder writes."""

from __future__ import annotations

import json
import re

import httpx
import pytest
import websockets

from tests.conftest import BUNDLED_POOL, env_server, fresh_seed
from watercolour_env.tool_env import WatercolourToolEnv
from watercolour_shared.reference_pool import ReferencePool, ReferencePoolError

REFUSAL = "I'm sorry, I can't paint that."  # refused by the gate at once: no render needed

# The options object of each bad class, as raw JSON, and the reason the answer must give.
BAD_OPTIONS = {
    "Infinity": ('{"weights": {"gate": Infinity, "length": 0, "judge": 0, "hps": 0}}', "gate is not a finite number"),
    "NaN": ('{"weights": {"gate": 0, "length": NaN, "judge": 0, "hps": 0}}', "length is not a finite number"),
    "-Infinity": ('{"weights": {"gate": 0, "length": 0, "judge": 0, "hps": -Infinity}}', "hps is not a finite number"),
    "1e308": ('{"weights": {"gate": 1e308, "length": 0, "judge": 0, "hps": 0}}', "gate is over 100"),
    "negative": ('{"weights": {"gate": 1, "length": -0.5, "judge": 0, "hps": 0}}', "length is negative"),
    "missing term": ('{"weights": {"gate": 1, "length": 0, "judge": 0}}', "weights name every term; missing: hps"),
    "unknown term": ('{"weights": {"gate": 1, "length": 0, "judge": 0, "hps": 0, "style": 1}}', "unknown: style"),
    "unknown setting": ('{"subjet": "a fern"}', "Extra inputs are not permitted"),
    "mix": ('{"mix": "hps-only"}', "mix was retired: use weights"),
    "options as list": ('["judge-led"]', "options is an object of episode settings|valid dictionary"),
    "weight true": ('{"weights": {"gate": true, "length": 0, "judge": 1, "hps": 0}}', "gate is not a number: a bool"),
    "weight as text": ('{"weights": {"gate": "0.5", "length": 0, "judge": 1, "hps": 0}}', "gate is not a number: a str"),
    "weights all 0": ('{"weights": {"gate": 0, "length": 0, "judge": 0, "hps": -0.0}}', "weights reward nothing"),
    "references true": ('{"references": true}', "valid integer"),
    "references as text": ('{"references": "4"}', "valid integer"),
    "references 4.0": ('{"references": 4.0}', "valid integer"),
    "revisions true": ('{"revisions": true}', "valid integer"),
    "revision bonus as text": ('{"revision_bonus": "0.5"}', "valid number"),
    "subject too long": (json.dumps({"subject": "a rose " * 40}), "at most 200"),
    # Lone surrogates in what is refused: the reason is still written, and nothing of it is echoed raw (FastAPI's JSON
    # reader refuses such text itself on /evaluate: "a valid string").
    "surrogate weight": (
        r'{"weights": {"\ud800": 1, "gate": 1, "length": 0, "judge": 0, "hps": 0}}',
        r"unknown: \\ud800|valid string",
    ),
    "surrogate setting": (r'{"\ud800": 1}', "Extra inputs are not permitted|valid string"),
    # The bundled pool holds 4 love and 2 okay; the tier mix {"love": 2, "okay": 2} of 6 takes 3 of each.
    "references too many": (
        '{"references": 6, "weights": {"gate": 0, "length": 0, "judge": 1, "hps": 0}}',
        r"6 judge references per rollout with the tier mix .* need 3 'okay' \(the pool holds 2\)",
    ),
}


@pytest.fixture(scope="module")
def judged_url():
    """The environment with the offline judge on the bundled pool, so a reference count is checked against a real pool."""
    with env_server(WATERCOLOUR_BROWSERS="1", WATERCOLOUR_JUDGE="offline", WATERCOLOUR_POOL_PATH=str(BUNDLED_POOL)) as url:
        yield url


def post_raw(url: str, body: str) -> httpx.Response:
    return httpx.post(url, content=body, headers={"content-type": "application/json"}, timeout=60)


def reasons(errors: list[dict]) -> str:
    return " | ".join(error["msg"] for error in errors)


def still_answers(url: str) -> None:
    """The service is healthy and a good episode is still served over HTTP."""
    assert httpx.get(f"{url}/health").json()["status"] == "healthy"
    assert httpx.post(f"{url}/reset", json={"seed": 1, "options": {"subject": "a fern"}}).status_code == 200
    step = httpx.post(f"{url}/step", json={"action": {"reply": REFUSAL}}, timeout=60)
    assert step.status_code == 200 and step.json()["observation"]["status"] == "failed"


# The HTTP routes that take episode options, and the body each takes them in.
HTTP_ROUTES = {
    "/evaluate": lambda options: f'{{"replies": [{json.dumps(REFUSAL)}], "options": {options}}}',
    "/reset": lambda options: f'{{"seed": 1, "options": {options}}}',  # OpenEnv's
}


@pytest.mark.parametrize("route", HTTP_ROUTES)
@pytest.mark.parametrize("name", BAD_OPTIONS)
def test_http_routes_refuse_bad_options_with_the_reason(judged_url, name, route):
    options, reason = BAD_OPTIONS[name]
    answer = post_raw(f"{judged_url}{route}", HTTP_ROUTES[route](options))
    assert answer.status_code == 422, answer.text
    assert re.search(reason, reasons(answer.json()["detail"]))
    still_answers(judged_url)


@pytest.mark.parametrize("name", BAD_OPTIONS)
async def test_websocket_reset_refuses_bad_options_and_keeps_the_session(judged_url, name):
    options, reason = BAD_OPTIONS[name]
    async with websockets.connect(judged_url.replace("http", "ws") + "/ws") as ws:
        await ws.send(f'{{"type": "reset", "data": {{"seed": 1, "options": {options}}}}}')
        refused = json.loads(await ws.recv())
        assert refused["type"] == "error" and refused["data"]["code"] == "VALIDATION_ERROR", refused
        assert re.search(reason, reasons(refused["data"]["errors"]))
        # The same socket, and its session, go on: a good episode is reset and stepped.
        await ws.send(json.dumps({"type": "reset", "data": {"seed": fresh_seed(), "options": {"subject": "a fern"}}}))
        reset = json.loads(await ws.recv())
        await ws.send(json.dumps({"type": "step", "data": {"reply": REFUSAL}}))
        stepped = json.loads(await ws.recv())
    assert reset["type"] == "observation" and reset["data"]["observation"]["subject"] == "a fern"
    assert stepped["type"] == "observation" and stepped["data"]["observation"]["status"] == "failed"
    still_answers(judged_url)


async def test_a_reference_count_the_pool_serves_is_taken_and_one_for_a_judge_weighted_0_is_not_checked(judged_url):
    judged = {"gate": 0, "length": 0, "judge": 1, "hps": 0}
    unjudged = {"gate": 1, "length": 0, "judge": 0, "hps": 0}
    for options in ({"references": 5, "weights": judged}, {"references": 16, "weights": unjudged}):
        answer = httpx.post(f"{judged_url}/evaluate", json={"replies": [REFUSAL], "options": options}, timeout=60)
        assert answer.status_code == 200, answer.text
        assert httpx.post(f"{judged_url}/reset", json={"options": options}).status_code == 200


def test_the_pools_check_is_what_its_draw_needs():
    pool = ReferencePool.from_folder(BUNDLED_POOL)
    assert pool.check({"love": 2, "okay": 2}, 5) == {"love": 3, "okay": 2}
    assert len(pool.sample({"love": 2, "okay": 2}, 5, seed=0)) == 5
    with pytest.raises(ReferencePoolError, match="6 judge references per rollout with the tier mix .* need 3 'okay'"):
        pool.check({"love": 2, "okay": 2}, 6)
    with pytest.raises(ReferencePoolError, match="need 3 'okay'"):
        pool.sample({"love": 2, "okay": 2}, 6, seed=0)


def test_a_reset_seed_outside_what_a_render_takes_is_refused(judged_url):
    for seed in ("2147483648", "1" + "0" * 400, "-1"):
        answer = post_raw(f"{judged_url}/reset", f'{{"seed": {seed}, "options": {{"subject": "a fern"}}}}')
        assert answer.status_code == 422, answer.text
        assert "a seed is a whole number from 0 to 2147483647" in answer.text or "greater than or equal" in answer.text
    still_answers(judged_url)


async def test_json_python_cannot_read_is_refused_and_the_socket_goes_on(judged_url):
    """An integer of thousands of digits, or nesting past the parser's recursion: well-formed JSON that Python's reader
    refuses with an error OpenEnv's socket handler does not expect (it ended the session)."""
    weights = '{"gate": 1' + "0" * 5000 + ', "length": 0, "judge": 1, "hps": 0}'
    deep = '{"a": ' * 3000 + "1" + "}" * 3000
    async with websockets.connect(judged_url.replace("http", "ws") + "/ws", max_size=2**22) as ws:
        for options in (f'{{"weights": {weights}}}', deep):
            await ws.send(f'{{"type": "reset", "data": {{"seed": 1, "options": {options}}}}}')
            refused = json.loads(await ws.recv())
            assert refused["type"] == "error" and refused["data"]["code"] == "INVALID_JSON", refused
        await ws.send(json.dumps({"type": "reset", "data": {"seed": fresh_seed(), "options": {"subject": "a fern"}}}))
        assert json.loads(await ws.recv())["type"] == "observation"


async def test_a_subject_with_a_lone_surrogate_is_made_well_formed(judged_url):
    body = r'{"seed": 1, "options": {"subject": "a \ud800 fern"}}'
    answer = post_raw(f"{judged_url}/reset", body)
    assert answer.status_code == 200 and answer.json()["observation"]["subject"] == "a \ufffd fern"
    async with websockets.connect(judged_url.replace("http", "ws") + "/ws") as ws:
        await ws.send(f'{{"type": "reset", "data": {body}}}')
        assert json.loads(await ws.recv())["data"]["observation"]["subject"] == "a \ufffd fern"
        await ws.send(json.dumps({"type": "step", "data": {"reply": REFUSAL}}))
        assert json.loads(await ws.recv())["data"]["observation"]["status"] == "failed"


@pytest.mark.parametrize("name", ["missing term", "1e308", "weights all 0"])
def test_the_tool_env_refuses_bad_weights_at_reset_before_any_painting(judged_url, name):
    """The tool env sends its weights with every reset: a bad one stops the rollout at once, never paints."""
    weights = json.loads(BAD_OPTIONS[name][0])["weights"]
    with WatercolourToolEnv(judged_url, weights=weights) as env, pytest.raises(RuntimeError, match="VALIDATION_ERROR"):
        env.reset(subject="a fern", seed=1)
    still_answers(judged_url)

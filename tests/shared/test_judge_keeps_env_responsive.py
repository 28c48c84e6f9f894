"""The environment's judge term against a judge endpoint that answers a megabyte of `{`, through the real
environment process and real HTTP: the answer is refused (the term unavailable, the reward None, never 0), no call
is repeated for it, and /health keeps answering at once meanwhile. The old judge searched such an answer with a
quadratic regex on the event loop: /health went unanswered for as long as it ran (17.8 s in the review, minutes
for this one)."""

from __future__ import annotations

import threading
import time

import httpx

from tests.conftest import fresh_seed, running_service, sketch
from tests.env.test_full_reward import router_env
from watercolour_harness.scripted_http import ScriptedServer

HEALTH_WAIT_S = 10.0


def test_health_answers_at_once_while_the_judge_answers_a_megabyte_of_braces():
    hostile = {"choices": [{"message": {"role": "assistant", "content": "{" * 1_000_000}}]}
    answers, waits = {}, []
    with (
        ScriptedServer([(200, hostile, 0)]) as judge,
        running_service("watercolour_env.server.app", router_env(judge.url), "/health") as url,
    ):

        def evaluate():
            body = {"replies": [sketch("two-washes.js")], "seed": fresh_seed()}
            answers["evaluate"] = httpx.post(f"{url}/evaluate", json=body, timeout=120).json()

        worker = threading.Thread(target=evaluate, daemon=True)
        worker.start()
        until = time.monotonic() + 120
        while worker.is_alive() and time.monotonic() < until:
            started = time.perf_counter()
            try:
                httpx.get(f"{url}/health", timeout=HEALTH_WAIT_S).raise_for_status()
                waits.append(time.perf_counter() - started)
            except httpx.TimeoutException:
                waits.append(HEALTH_WAIT_S)
            time.sleep(0.05)
        worker.join(timeout=5)
        calls = len(judge.requests)
    [item] = answers["evaluate"]["results"]
    assert item["render"]["status"] == "passed"
    assert item["reward"]["judge"] is None and item["reward"]["total"] is None  # unavailable, never 0
    assert calls == 8  # 4 references x 2 orders, none asked again
    assert waits and max(waits) < 3.0, (len(waits), max(waits))

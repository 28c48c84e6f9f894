"""The OpenEnv client's known hazards, against the real server: after a call times out the next call gets its own
answer, never the late one (OpenEnv issue 1143), and a socket closed under the client reconnects."""

from __future__ import annotations

import pytest

from tests.conftest import fresh_seed, sketch
from watercolour_env.client import WatercolourEnv
from watercolour_env.models import WatercolourAction

# Drawn until the render deadline (30 s in the tests): its answer comes long after the client stopped waiting.
HANGING = sketch("two-washes.js").replace("brush.noStroke();", "while (true) {} brush.noStroke();")
REFUSAL = "I'm sorry, I can't paint that."  # refused by the gate at once: no_sketch


async def test_after_a_timeout_the_next_call_gets_its_own_answer(server_url):
    async with WatercolourEnv(base_url=server_url, message_timeout_s=3.0) as env:
        await env.reset(seed=fresh_seed())
        with pytest.raises(TimeoutError):
            await env.step(WatercolourAction(reply=HANGING))
        await env.reset(seed=fresh_seed(), options={"subject": "a fern leaf"})
        state = await env.state()
        own = await env.step(WatercolourAction(reply=REFUSAL))
    assert state.subject == "a fern leaf" and state.step_count == 0
    assert own.observation.status == "failed"
    assert [violation.code for violation in own.observation.render.violations] == ["no_sketch"]  # not render_timeout


async def test_a_closed_socket_reconnects(server_url):
    async with WatercolourEnv(base_url=server_url) as env:
        await env.reset(seed=fresh_seed())
        await env._ws.close()  # what the far end closing leaves behind: a socket in the CLOSED state
        await env.reset(seed=fresh_seed(), options={"subject": "a fern leaf"})
        answered = await env.step(WatercolourAction(reply=REFUSAL))
        state = await env.state()
    assert state.subject == "a fern leaf" and state.step_count == 1 and answered.observation.status == "failed"


async def test_a_refused_reset_raises_and_the_session_goes_on(server_url):
    """The client's error names the code (its own text drops the frame's `errors`, where the reason is:
    tests/env/test_episode_options.py reads them); the socket and its session stay open."""
    async with WatercolourEnv(base_url=server_url) as env:
        with pytest.raises(RuntimeError, match="VALIDATION_ERROR"):
            await env.reset(seed=fresh_seed(), options={"weights": {"gate": 1, "length": 0, "judge": 0}})
        await env.reset(seed=fresh_seed(), options={"subject": "a fern leaf"})
        answered = await env.step(WatercolourAction(reply=REFUSAL))
        state = await env.state()
    assert state.subject == "a fern leaf" and state.step_count == 1 and answered.observation.status == "failed"

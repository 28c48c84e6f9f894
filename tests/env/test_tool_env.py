"""The environment as TRL's `environment_factory` sees it, against real server processes: the tool TRL offers
the model, a painting's reward, a rollout that never paints, and a judge-less infrastructure failure."""

from __future__ import annotations

import pytest
from transformers.utils import get_json_schema

from tests.conftest import env_server, sketch
from watercolour_env.tool_env import WatercolourToolEnv

HOSTILE = "function setup() { createCanvas(600, 600, WEBGL); }\nfunction draw() { while (true) {} }"


@pytest.fixture(scope="module")
def dead_scorer_env_url():
    """An environment whose HPSv3 term weighs in but whose scorer nobody answers: infrastructure down."""
    weights = "gate=0.05,length=0.05,judge=0,hps=0.9"
    with env_server(WATERCOLOUR_WEIGHTS=weights, WATERCOLOUR_SCORER_URL="http://127.0.0.1:1") as url:
        yield url


def test_trl_offers_the_model_one_tool_paint_with_its_sketch():
    """TRL exposes every public method but reset and get_reward as a tool, described from its docstring."""
    public = {name for name in vars(WatercolourToolEnv) if not name.startswith("_")}
    assert public == {"reset", "paint", "get_reward"}
    schema = get_json_schema(WatercolourToolEnv.paint)["function"]
    assert schema["name"] == "paint" and schema["parameters"]["required"] == ["sketch"]
    assert "p5.brush" in schema["parameters"]["properties"]["sketch"]["description"]


def test_a_painting_earns_the_environments_reward(server_url):
    with WatercolourToolEnv(server_url) as env:
        brief = env.reset(subject="a red poppy", prompt=[])  # TRL passes the whole dataset row
        assert "Paint a red poppy" in brief and "`paint` tool" in brief
        assert env.get_reward() == 0.0  # a rollout that never paints: the model's doing
        answer = env.paint(sketch("two-washes.js"))
        painted = env.get_reward()
        assert "passed the gate" in answer and painted > 0
        answer = env.paint(HOSTILE)  # a second painting is one too, and the last one counts
        assert "failed the gate" in answer and env.get_reward() == 0.0
        env.reset(subject="a fern")
        assert env.get_reward() == 0.0


def test_an_infrastructure_failure_is_none_and_a_failed_sketch_still_zero(dead_scorer_env_url):
    with WatercolourToolEnv(dead_scorer_env_url) as env:
        env.reset(subject="a red poppy")
        answer = env.paint(sketch("two-washes.js"))
        assert env.get_reward() is None and "not held against you" in answer
        env.paint("I'm sorry, I can't paint that.")
        assert env.get_reward() == 0.0


def test_an_environment_gone_mid_rollout_is_none_and_an_oversized_sketch_zero():
    with env_server(WATERCOLOUR_BROWSERS="1") as url:
        env = WatercolourToolEnv(url, message_timeout_s=10.0)
        env.reset(subject="a red poppy")
        assert "refused" in env.paint("x" * 3_000_000) and env.get_reward() == 0.0  # past the wire's bound: the model's
    answer = env.paint(sketch("two-washes.js"))  # the server has stopped: no answer is ours, never a 0
    assert env.get_reward() is None and "not held against you" in answer


@pytest.mark.parametrize("junk", ["\ud800", "\x00", "\ud83d\x00"], ids=["lone-surrogate", "nul", "both"])
def test_text_no_encoder_likes_is_the_models_painting_never_an_outage(server_url, junk):
    """A lone surrogate or a NUL in the sketch crosses the wire and is scored; nothing a sketch holds is ours."""
    with WatercolourToolEnv(server_url) as env:
        env.reset(subject="a red poppy")
        env.paint(junk + sketch("two-washes.js") + junk)
        assert env.get_reward() is not None
        env.paint(junk)
        assert env.get_reward() == 0.0

"""The environment as TRL's `environment_factory` sees it, against real server processes: the tool TRL offers
the model, a painting's reward (never in the tool's answer), one seed per episode, a rollout that never paints,
a judge-less infrastructure failure, and a timed-out painting whose next one paints in the same episode."""

from __future__ import annotations

import pytest
from transformers.utils import get_json_schema

from tests.conftest import env_server, fresh_seed, sketch
from watercolour_env.tool_env import WatercolourToolEnv

HOSTILE = "function setup() { createCanvas(600, 600, WEBGL); }\nfunction draw() { while (true) {} }"
# Drawn until the render deadline (30 s in the tests): long after a 3 s client stopped waiting.
HANGING = sketch("two-washes.js").replace("brush.noStroke();", "while (true) {} brush.noStroke();")
REFUSAL = "I'm sorry, I can't paint that."  # refused by the gate at once: no_sketch


def episode(env: WatercolourToolEnv):
    """The episode the server holds for this tool env now (its OpenEnv state)."""
    return env._env.state()


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


def test_an_episode_paints_with_one_seed_and_the_answer_never_tells_the_reward(server_url):
    """The row's seed is the episode's, for every painting: the same sketch paints the same picture and reward, the
    rollouts of a group (one row) share it, and a row without one draws it once. The model hears the gate's verdict
    only: a reward it could read would let it repaint until a render scored well."""
    seed = fresh_seed()
    with WatercolourToolEnv(server_url) as env, WatercolourToolEnv(server_url) as other:
        env.reset(subject="a red poppy", seed=seed, prompt=[])
        answers, rewards = [], []
        for _ in range(2):
            answers.append(env.paint(sketch("two-washes.js")))
            rewards.append(env.get_reward())
            assert episode(env).seed == seed
        assert rewards[0] == rewards[1] > 0
        answers.append(env.paint(HOSTILE))
        assert env.get_reward() == 0.0 and episode(env).seed == seed  # the last painting counts
        assert answers[:2] == ["The sketch passed the gate."] * 2 and "failed the gate" in answers[2]
        for answer in answers:
            assert "eward" not in answer and f"{rewards[0]:.2f}" not in answer and "0.00" not in answer

        other.reset(subject="a red poppy", seed=seed)  # the same row: the same seed
        other.paint(sketch("two-washes.js"))
        assert episode(other).seed == seed and other.get_reward() == rewards[0]

        other.reset(subject="a red poppy")  # no seed in the row: drawn once, for every painting of the episode
        drawn = episode(other).seed
        other.paint(REFUSAL)
        other.paint(sketch("two-washes.js"))
        assert episode(other).seed == drawn


def test_after_a_timed_out_painting_the_next_paints_in_the_same_episode(server_url):
    """A painting the client stopped waiting for is None; the next one reconnects on a fresh socket (so the late
    answer is never read as its own) and begins the same episode again: subject, seed and weights."""
    seed, weights = fresh_seed(), {"gate": 0.3, "length": 0.7, "judge": 0.0, "hps": 0.0}
    with WatercolourToolEnv(server_url, weights=weights, message_timeout_s=3.0) as env:
        env.reset(subject="a fern leaf", seed=seed)
        answer = env.paint(HANGING)
        assert env.get_reward() is None and "not held against you" in answer
        answer = env.paint(REFUSAL)
        assert "failed the gate" in answer and env.get_reward() == 0.0
        held = episode(env)
    assert (held.subject, held.seed) == ("a fern leaf", seed)
    assert held.weights.model_dump() == weights

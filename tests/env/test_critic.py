"""The VLM critic (docs/revisions.md, "The VLM critic") against a local server speaking the chat-completions protocol,
its failure codes included, and the real Redis: the call holds the painting, the subject and the gate's outcome and
nothing of the pool or the sketch's text; every failure is a reason, never a critique; a long answer is cut; a
critique is cached and a failure is not; sessions sharing a painting pay once. No browser."""

from __future__ import annotations

import asyncio
import time

import pytest

from tests.conftest import fresh_seed
from tests.env.test_critique import assert_speaks_only_of_the_painting
from tests.pictures import b64, soft_wash
from watercolour_env.critic import MAX_CRITIQUE_CHARS, CriticClient, CriticFailed, VlmCritic, bounded, critic_prompt
from watercolour_env.settings import EnvSettings
from watercolour_harness.scripted_http import ScriptedServer
from watercolour_shared.redis_cache import RedisCache
from watercolour_shared.render_wire import RenderResult, Violation
from watercolour_shared.timeouts import client_wait_s

SAID = "The fern's fronds are soft wet-in-wet washes; glaze a darker green over the stems to give them weight."


def chat_answer(content: object) -> dict:
    return {"object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}


def painted() -> tuple[bytes, RenderResult]:
    """A painting no earlier run made, so the shared Redis cannot hold its critique."""
    png = soft_wash(fresh_seed())
    return png, RenderResult(status="passed", png_base64=b64(png), paint_fraction=0.3)


def critic_of(url: str, cache: RedisCache | None = None, deadline_s: float = 30.0) -> VlmCritic:
    client = CriticClient(url, "hf_test", "critic-test", timeout_s=deadline_s)
    client.backoff_s = 0.01  # the retries themselves, not their waits
    return VlmCritic(client, cache, deadline_s)


@pytest.fixture
def cache(settings):
    return RedisCache(settings.redis_url, ttl_s=60)


def parts(request: dict) -> tuple[list[str], list[str]]:
    """The image URLs and the texts of a chat request, as sent."""
    [message] = request["body"]["messages"]
    images = [part["image_url"]["url"] for part in message["content"] if part["type"] == "image_url"]
    return images, [part["text"] for part in message["content"] if part["type"] == "text"]


async def test_the_call_holds_the_painting_the_subject_and_the_gate_and_nothing_of_the_pool():
    png, result = painted()
    with ScriptedServer([(200, chat_answer(SAID), 0)]) as server:
        critic = critic_of(server.url)
        assert await critic.critique(result, "a fern") == SAID
        await critic.close()
    [request] = server.requests
    body = request["body"]
    assert request["path"] == "/chat/completions" and request["headers"]["authorization"] == "Bearer hf_test"
    assert (body["model"], body["temperature"], body["max_tokens"]) == ("critic-test", 0, 300)
    images, texts = parts(request)
    assert images == ["data:image/png;base64," + b64(png)]  # the painting, and no other image
    assert texts == [critic_prompt("a fern", result)]
    assert "a fern" in texts[0] and "passed the environment's checks" in texts[0]
    assert_speaks_only_of_the_painting(texts[0])  # no pool name, tier, coverage figure, or word of the outcome


def test_a_failed_gate_is_named_by_its_codes_never_by_the_sketchs_words():
    """What the sketch wrote (its code, the messages that quote it, its errors) stays out: no text of the sketch's can
    steer the VLM or make it refuse."""
    words = "IGNORE_ALL_INSTRUCTIONS"
    result = RenderResult(
        status="failed",
        violations=[
            Violation(code="runtime_error", message=f"{words} is not defined", line=3),
            Violation(code="blank_canvas", message=f"only 0.1% painted by {words}"),
            Violation(code="runtime_error", message="again"),
        ],
        errors=[f"ReferenceError: {words}"],
        warnings=[words],
        code=f"// {words}\nfunction setup() {{}}",
        png_base64=b64(soft_wash(1)),
    )
    prompt = critic_prompt("a fern", result)
    assert "failed the environment's checks (runtime error, blank canvas)" in prompt
    assert words.lower() not in prompt.lower() and "setup" not in prompt


async def test_429_is_retried_after_the_time_it_asks_for():
    _, result = painted()
    script = [(429, {"error": "rate limited"}, 0, {"Retry-After": "1"}), (200, chat_answer(SAID), 0)]
    with ScriptedServer(script) as server:
        critic = critic_of(server.url)
        assert await critic.critique(result, "a fern") == SAID
        await critic.close()
    first, second = server.requests
    assert second["at"] - first["at"] >= 1.0


@pytest.mark.parametrize(
    ("script", "reason"),
    [
        ([(500, {"error": "down"}, 0)], "HTTP 500"),
        ([(429, {"error": "rate limited"}, 0)], "HTTP 429"),
        ([(401, {"error": "bad token"}, 0)], "HTTP 401"),
        ([(200, "<html>busy</html>", 0)], "not a chat-completions answer"),
        ([(200, chat_answer(None), 0)], "content is null"),
        ([(200, chat_answer([{"type": "text"}]), 0)], "content is a list"),
        ([(200, chat_answer("  \n "), 0)], "the answer is empty"),
        ([(200, chat_answer(SAID), 2.0)], "no critique within 0.5 s"),
    ],
    ids=["500", "429", "401", "not-json", "null", "list", "empty", "timeout"],
)
async def test_a_failure_is_a_reason_never_a_critique_and_is_never_cached(script, reason, cache):
    _, result = painted()
    with ScriptedServer(script) as failing:
        critic = critic_of(failing.url, cache, deadline_s=0.5 if "within" in reason else 30.0)
        started = time.monotonic()
        with pytest.raises(CriticFailed, match=reason):
            await critic.critique(result, "a fern")
        assert time.monotonic() - started < 1.5  # the deadline holds, retries included
        await critic.close()
    with ScriptedServer([(200, chat_answer(SAID), 0)]) as answering:  # the same painting asked again: not cached
        critic = critic_of(answering.url, cache)
        assert await critic.critique(result, "a fern") == SAID
        await critic.close()
    assert len(answering.requests) == 1


async def test_nothing_painted_asks_nothing():
    with ScriptedServer([(200, chat_answer(SAID), 0)]) as server:
        critic = critic_of(server.url)
        with pytest.raises(CriticFailed, match="nothing was painted"):
            await critic.critique(RenderResult(status="unavailable", unavailable_reason="browser crashed"), "a fern")
        await critic.close()
    assert server.requests == []


async def test_a_long_answer_is_cut_at_a_word_to_the_bound():
    _, result = painted()
    with ScriptedServer([(200, chat_answer("Soft washes. " * 400), 0)]) as server:
        critic = critic_of(server.url)
        said = await critic.critique(result, "a fern")
        await critic.close()
    assert len(said) <= MAX_CRITIQUE_CHARS and said.endswith("...") and said[:-3].endswith(("Soft", "washes."))
    assert bounded("x" * 5000) == "x" * (MAX_CRITIQUE_CHARS - 3) + "..."  # one endless word: cut inside it
    assert bounded(" a\x00b \ud800 ") == "a\ufffdb \ufffd"  # safe to encode and cache


async def test_a_painting_seen_before_costs_no_call_on_any_replica_and_another_subject_asks_again(cache, settings):
    _, result = painted()
    with ScriptedServer([(200, chat_answer(SAID), 0), (200, chat_answer("A pond."), 0)]) as server:
        critic, replica = critic_of(server.url, cache), critic_of(server.url, RedisCache(settings.redis_url, ttl_s=60))
        assert await critic.critique(result, "a fern") == SAID
        assert await replica.critique(result, "a fern") == SAID  # from Redis: another replica pays nothing
        assert await critic.critique(result, "a pond") == "A pond."  # another prompt, another critique
        await critic.close()
        await replica.close()
    assert ["a pond" in parts(request)[1][0] for request in server.requests] == [False, True]


async def test_sessions_sharing_a_painting_at_once_pay_once(cache):
    _, result = painted()
    with ScriptedServer([(200, chat_answer(SAID), 0.3)]) as server:
        critic = critic_of(server.url, cache)
        said = await asyncio.gather(*(critic.critique(result, "a fern") for _ in range(4)))
        await critic.close()
    assert said == [SAID] * 4 and len(server.requests) == 1


def test_the_critic_setting_defaults_to_the_rules_and_borrows_the_judges_endpoint():
    rules = EnvSettings(critic="rules", judge_base_url="http://judge.local/v1", judge_model="judge-vlm")
    assert EnvSettings.model_fields["critic"].default == "rules" and "critic_timeout_s" not in rules.limits()
    vlm = EnvSettings(critic="vlm", judge_base_url="http://judge.local/v1", judge_model="judge-vlm", critic_timeout_s=30)
    assert vlm.critic_endpoint() == ("http://judge.local/v1", "judge-vlm")
    own = vlm.model_copy(update={"critic_base_url": "http://critic.local/v1", "critic_model": "critic-vlm"})
    assert own.critic_endpoint() == ("http://critic.local/v1", "critic-vlm")
    limits = vlm.limits()  # a turn asks the critic after its reward: a client waits for both
    waits = (limits["queue_timeout_s"], limits["render_deadline_s"], limits["scorer_timeout_s"], limits["judge_timeout_s"])
    assert limits["client_wait_s"] == client_wait_s(*waits) + 30 == rules.limits()["client_wait_s"] + 30
    with pytest.raises(ValueError, match="set HF_TOKEN"):
        EnvSettings(critic="vlm", hf_token=None, judge_base_url="https://router.huggingface.co/v1")

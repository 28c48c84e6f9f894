"""The pairwise judge: the chat-completions protocol and its failure codes against a
local server that speaks it, the tolerant parser, and the scoring rules."""

import asyncio
import time

import pytest

from tests.conftest import fresh_seed
from tests.pictures import blank_sheet, hard_blob, soft_wash
from tests.shared.deadline import assert_linear, deadline
from watercolour_harness.scripted_http import ScriptedServer
from watercolour_shared.judge.chat_judge import ChatJudge, JudgeRejected, JudgeUnavailable
from watercolour_shared.judge.offline import MARGIN, OfflineJudge, wash_quality
from watercolour_shared.judge.pairwise import PairwiseJudge
from watercolour_shared.judge.verdict import UnreadableVerdict, Verdict, find_verdict, parse_verdict
from watercolour_shared.redis_cache import RedisCache
from watercolour_shared.reference_pool import Reference


def chat_answer(content: str) -> dict:
    return {
        "id": "x",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
    }


A_WINS = chat_answer('{"winner": "A", "reason": "softer bleeds"}')


@pytest.mark.parametrize(
    ("text", "winner"),
    [
        ('{"winner": "B", "reason": "layered"}', "B"),
        ('```json\n{"winner": "a", "reason": "x"}\n```', "A"),
        ('I think {"winner": "Painting B", "reason": "glow"} is fair.', "B"),
    ],
)
def test_tolerant_parser(text, winner):
    assert parse_verdict(text).winner == winner


@pytest.mark.parametrize("text", ["", "A", '{"winner": "C"}', '{"reason": "no winner"}', "not json {"])
def test_unreadable_answers_are_failures_not_losses(text):
    with pytest.raises(UnreadableVerdict):
        parse_verdict(text)


async def test_a_call_sends_both_paintings_at_temperature_0_with_the_schema():
    with ScriptedServer([(200, A_WINS, 0)]) as server:
        async with ChatJudge(server.url, token="hf_test", model="Qwen/Qwen3-VL-30B-A3B-Instruct") as judge:
            verdict = await judge.compare(soft_wash(1), hard_blob())
    assert verdict == Verdict(winner="A", reason="softer bleeds")
    [request] = server.requests
    body = request["body"]
    assert request["path"] == "/chat/completions" and request["headers"]["authorization"] == "Bearer hf_test"
    assert body["temperature"] == 0 and body["model"] == "Qwen/Qwen3-VL-30B-A3B-Instruct"
    assert body["response_format"]["json_schema"]["schema"]["required"][0] == "winner"
    images = [part for part in body["messages"][0]["content"] if part["type"] == "image_url"]
    assert [image["image_url"]["url"][:22] for image in images] == ["data:image/png;base64,"] * 2


async def test_429_is_retried_after_the_time_it_asks_for():
    script = [(429, {"error": "rate limited"}, 0, {"Retry-After": "1"}), (200, A_WINS, 0)]
    with ScriptedServer(script) as server:
        async with ChatJudge(server.url) as judge:
            assert (await judge.compare(soft_wash(1), hard_blob())).winner == "A"
    first, second = server.requests
    assert second["at"] - first["at"] >= 1.0


@pytest.mark.parametrize("status", [408, 500, 502, 503])
async def test_transient_failures_are_retried(status):
    with ScriptedServer([(status, {"error": "busy"}, 0), (200, A_WINS, 0)]) as server:
        judge = ChatJudge(server.url, retries=2)
        judge.backoff_s = 0.01
        async with judge:
            assert (await judge.compare(soft_wash(1), hard_blob())).winner == "A"
    assert len(server.requests) == 2


@pytest.mark.parametrize("status", [400, 401, 402, 403, 404, 422])
async def test_caller_errors_are_never_retried(status):
    with ScriptedServer([(status, {"error": "no"}, 0)]) as server:
        async with ChatJudge(server.url, retries=3) as judge:
            with pytest.raises(JudgeRejected, match=str(status)):
                await judge.compare(soft_wash(1), hard_blob())
    assert len(server.requests) == 1


async def test_malformed_answers_and_timeouts_are_failed_calls():
    with ScriptedServer([(200, "this is not json", 0)]) as server:
        async with ChatJudge(server.url, retries=0) as judge:
            with pytest.raises(JudgeUnavailable):
                await judge.compare(soft_wash(1), hard_blob())
    with ScriptedServer([(200, chat_answer("I prefer the first one."), 0)]) as server:
        async with ChatJudge(server.url, retries=0) as judge:
            with pytest.raises(UnreadableVerdict):
                await judge.compare(soft_wash(1), hard_blob())
    with ScriptedServer([(200, A_WINS, 1.0)]) as server:
        async with ChatJudge(server.url, timeout_s=0.2, retries=0) as judge:
            with pytest.raises(JudgeUnavailable, match="Timeout"):
                await judge.compare(soft_wash(1), hard_blob())


class ScriptedJudge:
    """A judge whose preferences are a table: it prefers the painting listed first in `ranking`,
    picks A whenever `position_bias` is set, and fails for paintings in `broken`."""

    name = "scripted"
    prompt = "scripted"

    def __init__(self, ranking: list[bytes], position_bias: bool = False, broken: tuple[bytes, ...] = ()):
        self.ranking, self.position_bias, self.broken, self.calls = ranking, position_bias, broken, 0

    async def compare(self, painting_a: bytes, painting_b: bytes) -> Verdict:
        self.calls += 1
        if painting_a in self.broken or painting_b in self.broken:
            raise JudgeUnavailable("HTTP 503")
        if self.position_bias:
            return Verdict(winner="A", reason="always the first")
        better_a = self.ranking.index(painting_a) < self.ranking.index(painting_b)
        return Verdict(winner="A" if better_a else "B", reason="table")


WASH, BLOB, BLANK, OTHER = soft_wash(3), hard_blob(), blank_sheet(), soft_wash(4)
REFERENCES = [Reference("love-1", "love", OTHER), Reference("okay-1", "okay", BLOB)]


async def test_won_both_lost_both_and_split_orders():
    judge = ScriptedJudge(ranking=[OTHER, WASH, BLOB, BLANK])
    outcome = await PairwiseJudge(judge).score(WASH, REFERENCES)
    assert [c.score for c in outcome.comparisons] == [0.0, 1.0]  # loses to the love reference, beats the okay one
    assert outcome.score == 0.5
    assert all(c.orders_agree for c in outcome.comparisons)
    biased = await PairwiseJudge(ScriptedJudge(ranking=[], position_bias=True)).score(WASH, REFERENCES)
    assert [c.score for c in biased.comparisons] == [0.5, 0.5]
    assert not any(c.orders_agree for c in biased.comparisons)


async def test_a_reference_with_a_failed_order_is_dropped_and_none_resolved_is_unavailable():
    judge = ScriptedJudge(ranking=[OTHER, WASH, BLOB, BLANK], broken=(OTHER,))
    outcome = await PairwiseJudge(judge).score(WASH, REFERENCES)
    assert outcome.score == 1.0  # only the okay reference resolved
    assert outcome.comparisons[0].score is None
    nothing = await PairwiseJudge(ScriptedJudge(ranking=[], broken=(WASH,))).score(WASH, REFERENCES)
    assert nothing.score is None and nothing.unavailable_reason


async def test_a_painting_seen_before_costs_no_call(settings):
    cache = RedisCache(settings.redis_url, ttl_s=60)
    candidate = soft_wash(fresh_seed())  # never judged before, whatever Redis holds
    judge = ScriptedJudge(ranking=[OTHER, candidate, BLOB])
    pairwise = PairwiseJudge(judge, cache)
    first = await pairwise.score(candidate, REFERENCES)
    second = await pairwise.score(candidate, REFERENCES)
    await cache.close()
    assert second.score == first.score == 0.5
    assert judge.calls == 4  # 2 references x 2 orders, all from the first scoring


async def test_offline_judge_is_deterministic_and_prefers_washes_to_blobs_and_empty_sheets():
    judge = OfflineJudge()
    assert (await judge.compare(WASH, BLOB)).winner == "A"
    assert (await judge.compare(BLANK, WASH)).winner == "B"
    outcome = await PairwiseJudge(judge).score(WASH, [Reference("blob", "okay", BLOB), Reference("blank", "okay", BLANK)])
    assert outcome.score == 1.0 and all(c.orders_agree for c in outcome.comparisons)


async def test_offline_judge_calls_a_pair_it_cannot_tell_apart_a_tie():
    """soft_wash(2) and soft_wash(3) differ in wash quality by less than a thousandth: the first shown is picked in
    each order, so the orders disagree and the pair scores a half, where a strict comparison would decide it."""
    near, other = soft_wash(2), soft_wash(3)
    assert 0 < abs(wash_quality(near) - wash_quality(other)) < MARGIN
    judge = OfflineJudge()
    assert (await judge.compare(near, other)).winner == (await judge.compare(other, near)).winner == "A"
    outcome = await PairwiseJudge(judge).score(near, [Reference("near", "love", other)])
    assert outcome.score == 0.5 and not outcome.comparisons[0].orders_agree


# A judge's answer is remote text: bounded before it is read, and read in linear time, off the event loop's back.


HOSTILE = {
    "braces": lambda n: "{" * n,
    "winner keys": lambda n: '{"winner":' * (n // 10),
    "open verdicts": lambda n: '{"winner": "A"' * (n // 14),
    "an open string": lambda n: '{"reason": "' + "{" * n,
    "nested arrays": lambda n: '{"winner": "A", "reason": ' + "[" * n,
    "fences": lambda n: "```json\n{" * (n // 9),
}


@pytest.mark.parametrize("make", HOSTILE.values(), ids=HOSTILE.keys())
def test_the_verdict_is_found_in_linear_time_whatever_the_answer_holds(make):
    """Two megabytes of hostile text are searched in well under a second, and four times the text costs about
    four times the time (a quadratic search costs sixteen: the old one took minutes on a million `{`)."""
    small, large = make(500_000), make(2_000_000)
    with deadline(30):
        assert find_verdict(large) is None
    assert_linear(find_verdict, small, large)


def test_a_verdict_after_hostile_text_is_still_found_and_an_overlong_answer_is_refused_unread():
    noise = "I weighed {both} {{ paintings"
    assert find_verdict(noise * 1000 + '```json\n{"reason": "a {soft} edge", "winner": "b"}\n```').winner == "B"
    assert find_verdict('{"verdict": {"winner": "A", "reason": "glow"}}').winner == "A"
    with deadline(5), pytest.raises(UnreadableVerdict, match="2000000 characters"):
        parse_verdict("{" * 2_000_000)


def _heartbeat_gaps(stop: asyncio.Event, gaps: list[float]):
    async def beat():
        last = time.perf_counter()
        while not stop.is_set():
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    return asyncio.ensure_future(beat())


@pytest.mark.parametrize("braces", [2_000_000, 1_000_000, 15_000], ids=["2 MB", "1 MB", "under the text limit"])
async def test_a_hostile_answer_over_http_is_refused_quickly_and_the_event_loop_keeps_beating(braces):
    """A judge endpoint answers a run of `{`: over the answer's byte limit it is refused unread, over the verdict's
    length it is refused before parsing, and under both it is searched in linear time. Meanwhile a heartbeat on the
    same event loop (the environment's /health, in production) never stops for long. The old client spent minutes
    in a regex on the event loop, for the 1 MB answer and the 2 MB one; the deadline stops it."""
    stop, gaps = asyncio.Event(), []
    with ScriptedServer([(200, chat_answer("{" * braces), 0)]) as server, deadline(60):
        async with ChatJudge(server.url, retries=2) as judge:
            beating = _heartbeat_gaps(stop, gaps)
            started = time.perf_counter()
            with pytest.raises((JudgeUnavailable, UnreadableVerdict)) as refused:
                await judge.compare(soft_wash(1), hard_blob())
            took = time.perf_counter() - started
            stop.set()
            await beating
    assert took < 5.0 and max(gaps, default=0) < 1.0, (took, max(gaps, default=0))
    assert len(server.requests) == 1  # a hostile answer is not asked for again
    expected = {2_000_000: "over 1048576 bytes", 1_000_000: "1000000 characters", 15_000: "no verdict"}[braces]
    assert expected in str(refused.value)


async def test_an_oversized_answer_is_unavailable_never_a_loss():
    """Through the pairwise judge: every order refused, so no reference resolves and the score is None, not 0."""
    with ScriptedServer([(200, chat_answer("{" * 2_000_000), 0)]) as server, deadline(60):
        async with ChatJudge(server.url, retries=0) as judge:
            outcome = await PairwiseJudge(judge).score(WASH, REFERENCES)
    assert outcome.score is None and outcome.unavailable_reason
    assert all(c.score is None and c.candidate_as_a is None and c.candidate_as_b is None for c in outcome.comparisons)

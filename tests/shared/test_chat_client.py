"""The chat-completions client against real HTTP servers on loopback: whatever is not a text answer is
`unavailable` with its kind (never an empty reply), and no answer is read past its byte limit, however large
it says it is or however long it streams. The painting model and the judge both speak through it."""

from __future__ import annotations

import time

import pytest

from tests.shared.deadline import deadline
from watercolour_harness.scripted_http import LoopbackServer, QuietHandler, ScriptedServer
from watercolour_shared.chat_client import ChatClient
from watercolour_shared.judge.chat_judge import ChatJudge, JudgeUnavailable
from watercolour_shared.service_client import ServiceRejected, ServiceUnavailable
from watercolour_studio.pool.painter import PainterUnavailable, PaintingModel

ASK = {"model": "m", "messages": [{"role": "user", "content": "paint"}]}


def choice(message: dict) -> dict:
    return {"object": "chat.completion", "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}


NOT_TEXT = {
    "no choices": ({"object": "chat.completion", "choices": []}, "no choices"),
    "choices missing": ({"object": "chat.completion"}, "no choices"),
    "choices an object": ({"choices": {"0": {"message": {"content": "x"}}}}, "no choices"),
    "no message": ({"choices": [{"index": 0, "text": "x"}]}, "no message"),
    "null content": (choice({"role": "assistant", "content": None}), "null content"),
    "no content": (choice({"role": "assistant"}), "null content"),
    "list content": (choice({"role": "assistant", "content": [{"type": "text", "text": "x"}]}), "list content"),
    "number content": (choice({"role": "assistant", "content": 42}), "number content"),
    "object content": (choice({"role": "assistant", "content": {"code": "x"}}), "object content"),
    "boolean content": (choice({"role": "assistant", "content": True}), "boolean content"),
    "a JSON list": ([1, 2], "not a chat completion"),
    "not JSON": ("<html>bad gateway</html>", "not a chat completion"),
    "nested past the decoder": ('{"choices": ' + "[" * 200_000, "not a chat completion"),
}


@pytest.mark.parametrize(("answer", "kind"), NOT_TEXT.values(), ids=NOT_TEXT.keys())
async def test_an_answer_without_text_is_unavailable_with_its_kind_never_an_empty_reply(answer, kind):
    with ScriptedServer([(200, answer, 0)]) as server, deadline(30):
        async with PaintingModel("m", server.url, retries=0) as painter:
            with pytest.raises(PainterUnavailable) as failed:
                await painter.paint("a blue iris", seed=1)
    assert failed.value.kind == kind, failed.value


async def test_text_is_the_models_whatever_it_is_even_empty_or_past_the_environments_wire():
    """An empty reply and a reply of three million characters are what the model wrote: returned, for the gate."""
    long = "x" * 3_000_000
    with ScriptedServer([(200, choice({"content": ""}), 0), (200, choice({"content": long}), 0)]) as server:
        async with ChatClient(server.url, retries=0) as client:
            assert await client._complete(ASK) == ""
            assert await client._complete(ASK) == long


async def test_http_errors_carry_their_status_as_the_kind():
    with ScriptedServer([(500, {"error": "boom"}, 0)]) as server:
        client = ChatClient(server.url, retries=1)
        client.backoff_s = 0.01
        async with client:
            with pytest.raises(ServiceUnavailable) as failed:
                await client._complete(ASK)
    assert failed.value.kind == "HTTP 500" and len(server.requests) == 2
    with ScriptedServer([(402, {"error": "quota"}, 0)]) as server:
        async with ChatClient(server.url, retries=3) as client:
            with pytest.raises(ServiceRejected) as refused:
                await client._complete(ASK)
    assert refused.value.kind == "HTTP 402" and "quota" in str(refused.value)


class FloodServer(LoopbackServer):
    """Answers every POST with `status` and a body that never ends: `{` after `{`, for `seconds`, either
    announced as a gigabyte (content-length) or chunked without a length. Counts the bytes it managed to send."""

    def __init__(self, status: int, chunked: bool, seconds: float = 20.0):
        self.sent = 0
        outer = self

        class Handler(QuietHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):  # noqa: N802 - the http.server API
                self.rfile.read(int(self.headers.get("content-length", 0)))
                self.send_response(status)
                self.send_header("content-type", "application/json")
                if chunked:
                    self.send_header("transfer-encoding", "chunked")
                else:
                    self.send_header("content-length", str(10**9))
                self.end_headers()
                block, until = b"{" * 65536, time.monotonic() + seconds
                try:
                    while time.monotonic() < until:
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(block), block) if chunked else block)
                        outer.sent += len(block)
                except OSError:
                    return  # the client stopped reading: what this server is for

        super().__init__(Handler)


@pytest.mark.parametrize("chunked", [False, True], ids=["announced as a gigabyte", "chunked, no length"])
async def test_an_endless_answer_is_refused_at_the_byte_limit_not_read_to_its_end(chunked):
    """The judge reads at most a megabyte of an answer: a gigabyte announced is refused before its body, and a
    stream without a length is cut where it passes the limit. The old client read on until the server stopped."""
    with FloodServer(200, chunked) as server, deadline(15):
        started = time.perf_counter()
        async with ChatJudge(server.url, retries=2) as judge:
            with pytest.raises(JudgeUnavailable) as refused:
                await judge.compare(b"a", b"b")
        took = time.perf_counter() - started
    assert refused.value.kind == "answer too large" and "over 1048576 bytes" in str(refused.value)
    assert took < 5.0, took


@pytest.mark.parametrize("chunked", [False, True], ids=["announced as a gigabyte", "chunked, no length"])
async def test_an_endless_error_body_is_quoted_from_its_first_kilobytes(chunked):
    """The HF router's error pages are quoted, never read whole: a 503 whose body never ends fails at once."""
    with FloodServer(503, chunked) as server, deadline(15):
        started = time.perf_counter()
        client = ChatClient(server.url, retries=1)
        client.backoff_s = 0.01
        async with client:
            with pytest.raises(ServiceUnavailable) as failed:
                await client._complete(ASK)
        took = time.perf_counter() - started
    assert failed.value.kind == "HTTP 503" and len(str(failed.value)) < 400
    assert took < 5.0, took

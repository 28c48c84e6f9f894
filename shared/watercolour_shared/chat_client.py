"""Any OpenAI-compatible chat-completions endpoint (the Hugging Face router by default, a local vLLM or a
dedicated endpoint otherwise): the judge and studio's painting model both speak it. 408, 429 and 5xx are
retried honouring Retry-After; other 4xx are not (a 402 means the quota is spent: retrying only spends more).

The endpoint is remote text: its answer is read up to `max_answer_bytes` (service_client.py), decoded off the
event loop when it is large, and only the first choice's text is taken. Whatever is not a text answer (no
choices, a null content, a list, number or object where the text should be) is `unavailable`, with its kind
(`no choices`, `null content`, `list content`...), never an empty reply: the model did not write it."""

from __future__ import annotations

import asyncio
import base64
import json

from watercolour_shared.service_client import ServiceClient

# Answers up to this size are decoded on the event loop (well under a millisecond); larger ones in a thread.
INLINE_DECODE_BYTES = 64 * 1024


class ChatClient(ServiceClient):
    retry_statuses = frozenset({408, 429})
    backoff_s = 1.0
    # A painting model's reply may be long (and a reply past the environment's wire limit is the model's own
    # failure, which its caller must see to score): room for MAX_REPLY_CHARS escaped, and then some.
    max_answer_bytes = 16 * 1024 * 1024

    async def _complete(self, body: dict) -> str:
        """The first choice's text; an answer that is not a chat completion with text is `unavailable`, never empty."""
        response = await self._request("POST", "/chat/completions", body)
        raw = response.content
        if len(raw) > INLINE_DECODE_BYTES:
            return await asyncio.to_thread(self._content, raw)
        return self._content(raw)

    def _content(self, raw: bytes) -> str:
        try:
            answer = json.loads(raw)
        except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested past the decoder's depth
            raise self.unavailable(f"not a chat-completions answer: {raw[:200]!r}", kind="not a chat completion") from None
        if not isinstance(answer, dict):
            raise self.unavailable(f"not a chat-completions answer: a JSON {_kind(answer)}", kind="not a chat completion")
        choices = answer.get("choices")
        if not isinstance(choices, list) or not choices:
            raise self.unavailable(f"no choices in the answer (choices: {_kind(choices)})", kind="no choices")
        choice = choices[0]
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(message, dict):
            raise self.unavailable(f"the first choice has no message (a {_kind(choice)})", kind="no message")
        content = message.get("content")
        if content is None:
            reason = choice.get("finish_reason")
            reason = reason if isinstance(reason, str) else _kind(reason)
            raise self.unavailable(f"the message's content is null (finish_reason {reason[:40]!r})", kind="null content")
        if not isinstance(content, str):
            raise self.unavailable(f"the message's content is a {_kind(content)}, not text", kind=f"{_kind(content)} content")
        return content


def png_data_uri(png: bytes) -> str:
    """A PNG as a chat message's image: every VLM this project asks (the judge, the critic) is sent its paintings so."""
    return "data:image/png;base64," + base64.b64encode(png).decode()


def _kind(value: object) -> str:
    """A JSON value's type in JSON's words."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return {dict: "object", list: "list", str: "string", int: "number", float: "number"}.get(type(value), type(value).__name__)

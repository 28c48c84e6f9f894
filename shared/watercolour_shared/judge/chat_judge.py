"""The judge through any OpenAI-compatible chat-completions endpoint (watercolour_shared.chat_client):
two paintings go as image data URIs, temperature 0, with a strict JSON schema.

Its answer is bounded before it is read: a body over MAX_ANSWER_BYTES is refused unread (JudgeUnavailable),
and a message over the verdict's own limit (verdict.MAX_ANSWER_CHARS) is unreadable; the verdict is found in
linear time (verdict.py). So no answer, however hostile, holds the environment's event loop for more than a
moment: reading a verdict is a bounded decode of at most a megabyte, off the loop when it is large."""

from __future__ import annotations

import asyncio
from pathlib import Path

from watercolour_shared.chat_client import ChatClient, png_data_uri
from watercolour_shared.judge.defaults import DEFAULT_MODEL, HF_ROUTER_URL
from watercolour_shared.judge.verdict import RESPONSE_FORMAT, Verdict, parse_verdict
from watercolour_shared.service_client import ServiceRejected, ServiceUnavailable
from watercolour_shared.timeouts import JUDGE_TIMEOUT_S

PROMPT_FILE = Path(__file__).with_name("prompt.txt")


class JudgeUnavailable(ServiceUnavailable):
    """The judge gave no answer (down, rate-limited past the retries, timing out)."""


class JudgeRejected(ServiceRejected):
    """The judge refused the call (bad token, no quota, unknown model)."""


# A verdict is a line (300 tokens at most); a megabyte leaves room for whatever else a provider adds to the answer.
MAX_ANSWER_BYTES = 1024 * 1024


class ChatJudge(ChatClient):
    unavailable = JudgeUnavailable
    rejected = JudgeRejected
    max_answer_bytes = MAX_ANSWER_BYTES

    def __init__(
        self,
        base_url: str = HF_ROUTER_URL,
        token: str | None = None,
        model: str = DEFAULT_MODEL,
        max_concurrency: int = 16,
        timeout_s: float = JUDGE_TIMEOUT_S,
        retries: int = 4,
    ):
        super().__init__(base_url, token, timeout_s, retries)
        self.model = model
        self.prompt = PROMPT_FILE.read_text()
        self._slots = asyncio.Semaphore(max_concurrency)

    @property
    def name(self) -> str:
        return self.model

    async def reachable(self) -> bool:
        """The endpoint answers its model list (no tokens spent)."""
        return await self.probe("/models")

    async def compare(self, painting_a: bytes, painting_b: bytes) -> Verdict:
        """Which painting is the better watercolour. Raises on a failed, oversized or unreadable answer."""
        body = {
            "model": self.model,
            "temperature": 0,
            "max_tokens": 300,
            "response_format": RESPONSE_FORMAT,
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": self.prompt},
                        {"type": "text", "text": "Painting A:"},
                        {"type": "image_url", "image_url": {"url": png_data_uri(painting_a)}},
                        {"type": "text", "text": "Painting B:"},
                        {"type": "image_url", "image_url": {"url": png_data_uri(painting_b)}},
                    ],
                }
            ],
        }
        async with self._slots:
            content = await self._complete(body)
        return parse_verdict(content)

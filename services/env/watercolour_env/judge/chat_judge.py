"""The judge through any OpenAI-compatible chat-completions endpoint: the Hugging
Face Inference Providers router by default, a local vLLM or a dedicated endpoint
otherwise. Two paintings go as image data URIs, temperature 0, with a strict JSON
schema; 408, 429 and 5xx are retried honouring Retry-After, other 4xx are not
(a 402 means the quota is spent: retrying only spends more)."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path

from watercolour_env.judge.verdict import RESPONSE_FORMAT, Verdict, parse_verdict
from watercolour_shared.judge_defaults import DEFAULT_MODEL, HF_ROUTER_URL
from watercolour_shared.service_client import ServiceClient, ServiceRejected, ServiceUnavailable

PROMPT_FILE = Path(__file__).with_name("prompt.txt")


class JudgeUnavailable(ServiceUnavailable):
    """The judge gave no answer (down, rate-limited past the retries, timing out)."""


class JudgeRejected(ServiceRejected):
    """The judge refused the call (bad token, no quota, unknown model)."""


class ChatJudge(ServiceClient):
    unavailable = JudgeUnavailable
    rejected = JudgeRejected
    retry_statuses = frozenset({408, 429})
    backoff_s = 1.0

    def __init__(
        self,
        base_url: str = HF_ROUTER_URL,
        token: str | None = None,
        model: str = DEFAULT_MODEL,
        max_concurrency: int = 16,
        timeout_s: float = 120.0,
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
        """Which painting is the better watercolour. Raises on a failed or unreadable call."""
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
                        {"type": "image_url", "image_url": {"url": _data_uri(painting_a)}},
                        {"type": "text", "text": "Painting B:"},
                        {"type": "image_url", "image_url": {"url": _data_uri(painting_b)}},
                    ],
                }
            ],
        }
        async with self._slots:
            response = await self._request("POST", "/chat/completions", body)
        try:
            content = response.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise JudgeUnavailable(f"not a chat-completions answer: {response.text[:200]!r}") from None
        return parse_verdict(content or "")


def _data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode()

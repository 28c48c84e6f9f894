"""A painting model through any OpenAI-compatible chat-completions endpoint (the HF router by
default), asked with the policy's own prompts, so the pool shows what the policy is asked for.
Retries follow the shared client: 408, 429 and 5xx, honouring Retry-After; other 4xx stop."""

from __future__ import annotations

from watercolour_shared.judge_defaults import HF_ROUTER_URL
from watercolour_shared.prompts import chat_messages
from watercolour_shared.service_client import ServiceClient, ServiceRejected, ServiceUnavailable


class PainterUnavailable(ServiceUnavailable):
    """The model gave no answer (down, rate-limited past the retries, timing out, or not a chat answer)."""


class PainterRejected(ServiceRejected):
    """The endpoint refused the call (bad token, no quota, unknown model)."""


class PaintingModel(ServiceClient):
    unavailable = PainterUnavailable
    rejected = PainterRejected
    retry_statuses = frozenset({408, 429})
    backoff_s = 1.0

    def __init__(
        self, model: str, base_url: str = HF_ROUTER_URL, token: str | None = None, temperature: float = 1.0, retries: int = 4
    ):
        super().__init__(base_url, token, timeout_s=300.0, retries=retries)
        self.model = model
        self.temperature = temperature

    async def paint(self, subject: str, seed: int) -> str:
        """The model's reply, as the environment's gate expects it (code in a fence, or plain code)."""
        body = {
            "model": self.model,
            "messages": chat_messages(subject),
            "temperature": self.temperature,
            "max_tokens": 8192,
            "seed": seed,
        }
        response = await self._request("POST", "/chat/completions", body)
        try:
            content = response.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise PainterUnavailable(f"not a chat-completions answer: {response.text[:200]!r}") from None
        return content or ""

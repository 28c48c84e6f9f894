"""Any OpenAI-compatible chat-completions endpoint (the Hugging Face router by default, a local vLLM or a
dedicated endpoint otherwise): the judge and studio's painting model both speak it. 408, 429 and 5xx are
retried honouring Retry-After; other 4xx are not (a 402 means the quota is spent: retrying only spends more)."""

from __future__ import annotations

from watercolour_shared.service_client import ServiceClient


class ChatClient(ServiceClient):
    retry_statuses = frozenset({408, 429})
    backoff_s = 1.0

    async def _complete(self, body: dict) -> str:
        """The first choice's text; an answer that is not a chat completion is `unavailable`, never empty."""
        response = await self._request("POST", "/chat/completions", body)
        try:
            content = response.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise self.unavailable(f"not a chat-completions answer: {response.text[:200]!r}") from None
        return content or ""

"""A painting model through any OpenAI-compatible chat-completions endpoint (watercolour_shared.chat_client,
the HF router by default), asked with the policy's own prompts, so the pool shows what the policy is asked for."""

from __future__ import annotations

from watercolour_shared.chat_client import ChatClient
from watercolour_shared.judge.defaults import HF_ROUTER_URL
from watercolour_shared.prompts import chat_messages
from watercolour_shared.sampling import Sampling
from watercolour_shared.service_client import ServiceRejected, ServiceUnavailable


class PainterUnavailable(ServiceUnavailable):
    """The model gave no answer (down, rate-limited past the retries, timing out, or not a chat answer)."""


class PainterRejected(ServiceRejected):
    """The endpoint refused the call (bad token, no quota, unknown model)."""


class PaintingModel(ChatClient):
    unavailable = PainterUnavailable
    rejected = PainterRejected

    def __init__(
        self,
        model: str,
        base_url: str = HF_ROUTER_URL,
        token: str | None = None,
        temperature: float = Sampling().temperature,
        retries: int = 4,
        sampling: Sampling | None = None,
    ):
        """`sampling`: a policy's, sent whole (temperature, top_p, top_k, max_tokens); without it (a reference
        painter of the pool) only `temperature` and the completion length are sent, the endpoint's own for the rest."""
        super().__init__(base_url, token, timeout_s=300.0, retries=retries)
        self.model = model
        self.sampling_fields = (
            sampling.chat_fields() if sampling else {"temperature": temperature, "max_tokens": Sampling().max_new_tokens}
        )

    async def paint(self, subject: str, seed: int) -> str:
        """The model's reply, as the environment's gate expects it (code in a fence, or plain code)."""
        body = {"model": self.model, "messages": chat_messages(subject), **self.sampling_fields, "seed": seed}
        return await self._complete(body)

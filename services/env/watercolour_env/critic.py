"""The optional VLM critic (WATERCOLOUR_CRITIC=vlm; docs/revisions.md, "The VLM critic").

One chat-completions call to the judge's endpoint (or WATERCOLOUR_CRITIC_BASE_URL) through the judge's own client code
(watercolour_shared.chat_client: the token, retries honouring Retry-After, the bounded read). The call holds the
painting, the episode's subject and the gate's outcome in the gate's fixed codes, and nothing else: the critic is given
no reference, pool, tier, verdict or score, so it cannot send one; nor the sketch's code or the messages that quote it,
so no text the sketch writes reaches the VLM.

Whatever goes wrong (the endpoint down, 429 or 5xx past the retries, no answer by the deadline, an answer that is not
text, or is empty) is the critic's failure, never the painting's: `CriticFailed` carries the reason, and the turn shows
the rules' critique instead. A critique is cached in Redis under the painting's digest, the model and the prompt as
sent; a failure is never cached.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
from pathlib import Path

from watercolour_shared.cache_keys import critic_key
from watercolour_shared.chat_client import ChatClient, png_data_uri
from watercolour_shared.redis_cache import RedisCache
from watercolour_shared.render_wire import RenderResult
from watercolour_shared.service_client import ServiceRejected, ServiceUnavailable
from watercolour_shared.sketch_text import LINE_CHARS, safe_text

log = logging.getLogger(__name__)

PROMPT_FILE = Path(__file__).with_name("critic_prompt.txt")
PROMPT = PROMPT_FILE.read_text()
# The prompt file and this code (the request's parameters, the gate's wording, the cut): in every cache key and on every
# critique the critic wrote, so a changed prompt never reads a stale critique and a run says which prompt wrote its words.
CRITIC_VERSION = hashlib.sha256(Path(__file__).read_bytes() + PROMPT_FILE.read_bytes()).hexdigest()[:12]
MAX_TOKENS = 300  # the prompt asks for 120 words
MAX_CRITIQUE_CHARS = 1500  # an answer longer than this (a provider that ignores max_tokens) is cut at a word
MAX_ANSWER_BYTES = 1024 * 1024  # as the judge's: room for what a provider adds around 300 tokens
NAMED_CODES = 3  # the gate's codes named in the prompt


class CriticUnavailable(ServiceUnavailable):
    """The critic gave no critique (down, rate-limited past the retries, an answer that is no text)."""


class CriticRejected(ServiceRejected):
    """The endpoint refused the call (bad token, no quota, unknown model)."""


class CriticFailed(Exception):
    """No critique from the VLM this turn; `reason` says why, and the rules' critique stands in."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class CriticClient(ChatClient):
    unavailable = CriticUnavailable
    rejected = CriticRejected
    max_answer_bytes = MAX_ANSWER_BYTES

    def __init__(self, base_url: str, token: str | None, model: str, timeout_s: float):
        super().__init__(base_url, token, timeout_s, retries=4)
        self.model = model

    async def ask(self, png: bytes, prompt: str) -> str:
        """The model's text about the painting. Raises on a failed, oversized or textless answer."""
        content = [{"type": "image_url", "image_url": {"url": png_data_uri(png)}}, {"type": "text", "text": prompt}]
        messages = [{"role": "user", "content": content}]
        return await self._complete({"model": self.model, "temperature": 0, "max_tokens": MAX_TOKENS, "messages": messages})


class VlmCritic:
    def __init__(self, client: CriticClient, cache: RedisCache | None, deadline_s: float, max_concurrency: int = 16):
        self.client = client
        self.cache = cache
        self.deadline_s = deadline_s
        self.version = f"{CRITIC_VERSION}:{client.model}"
        self._slots = asyncio.Semaphore(max_concurrency)
        self._asking: dict[str, asyncio.Future[str]] = {}

    async def critique(self, result: RenderResult, subject: str) -> str:
        """The VLM's critique of the render's painting, at most MAX_CRITIQUE_CHARS. Raises CriticFailed, with the
        reason, when it gives none."""
        if not result.png_base64:
            raise CriticFailed("nothing was painted to show the critic")
        png = base64.b64decode(result.png_base64)
        prompt = critic_prompt(subject, result)
        prompt_digest = hashlib.sha256(f"{CRITIC_VERSION}\0{prompt}".encode()).hexdigest()
        key = critic_key(hashlib.sha256(png).hexdigest(), self.client.model, prompt_digest)
        try:
            return await self._once(key, png, prompt)
        except Exception as error:  # noqa: BLE001 - any failure of the critic is its own, never the painting's
            reason = f"no critique within {self.deadline_s:g} s" if isinstance(error, asyncio.TimeoutError) else str(error)
            log.warning("the VLM critic gave no critique: %s", reason)
            raise CriticFailed(safe_text(reason or type(error).__name__, LINE_CHARS)) from None

    async def close(self) -> None:
        await self.client.close()

    async def _once(self, key: str, png: bytes, prompt: str) -> str:
        """From the cache, else one call per painting and prompt at a time in this process: the sessions of a group
        that share a painting wait on the first one's call."""
        cached = await self.cache.get(key) if self.cache else None
        if cached is not None:
            return cached.decode()
        asking = self._asking.get(key)
        if asking is None:
            asking = self._asking[key] = asyncio.ensure_future(self._ask(key, png, prompt))
            asking.add_done_callback(lambda _: self._asking.pop(key, None))
        return await asyncio.shield(asking)  # one session leaving does not cancel the others' call

    async def _ask(self, key: str, png: bytes, prompt: str) -> str:
        text = bounded(await asyncio.wait_for(self._call(png, prompt), self.deadline_s))  # a slot's wait counts too
        if not text:
            raise CriticUnavailable("the answer is empty", kind="empty answer")
        if self.cache:
            await self.cache.put(key, text)
        return text

    async def _call(self, png: bytes, prompt: str) -> str:
        async with self._slots:
            return await self.client.ask(png, prompt)


def critic_prompt(subject: str, result: RenderResult) -> str:
    """The text sent with the painting: the subject and the gate's outcome as its fixed codes, never its messages,
    which quote the sketch."""
    if result.passed:
        gate = "It passed the environment's checks."
    else:
        codes = list(dict.fromkeys(violation.code.value.replace("_", " ") for violation in result.violations))
        named = ", ".join(codes[:NAMED_CODES]) or "it did not finish"
        gate = f"It failed the environment's checks ({named}), so it may be unfinished."
    return PROMPT.format(subject=subject, gate=gate)


def bounded(text: str) -> str:
    """The answer trimmed and safe to hold (no NUL or lone surrogate); past MAX_CRITIQUE_CHARS, cut after the last
    whole word that fits, ending "..."."""
    text = text.strip()
    if len(text) > MAX_CRITIQUE_CHARS:
        room, after = text[: MAX_CRITIQUE_CHARS - 3], text[MAX_CRITIQUE_CHARS - 3]
        text = (room if after.isspace() else room.rsplit(None, 1)[0]).rstrip() + "..."  # one long word: cut inside it
    return safe_text(text, MAX_CRITIQUE_CHARS)

"""The HTTP client every typed service client builds on: bearer token, timeouts,
and one retry policy. Transport errors, timeouts, 5xx and `retry_statuses` are
retried with jittered exponential backoff, honouring Retry-After; any other 4xx
is the caller's mistake and is raised at once.

A body is read up to a byte limit, never whole whatever its size: an answer larger than
`max_answer_bytes` is refused unread (`unavailable`, with kind `answer too large`), and an error's body is
read only as far as the line quoted from it (ERROR_BODY_BYTES). A remote service controls its answer; the
limit is what keeps one from filling memory or holding the event loop while it is decoded."""

from __future__ import annotations

import asyncio
import random
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime

import httpx

MAX_RETRY_AFTER_S = 60.0
# An error's body is only quoted (its first 300 characters): reading more is reading for nobody.
ERROR_BODY_BYTES = 4096
QUOTED_CHARS = 300


class ServiceUnavailable(Exception):
    """No answer came: the service is down, overloaded or failing. Never a model failure.

    `kind` names the failure in a few words (`HTTP 503`, `ReadTimeout`, `answer too large`, `null content`),
    so a caller can count failures by kind; the message says the rest."""

    def __init__(self, message: str = "", kind: str | None = None):
        super().__init__(message)
        self.kind = kind or (message.split(":", 1)[0] if message else type(self).__name__)


class ServiceRejected(Exception):
    """The service refused the request itself (4xx): retrying cannot help."""

    def __init__(self, message: str = "", kind: str | None = None):
        super().__init__(message)
        self.kind = kind or (message.split(":", 1)[0] if message else type(self).__name__)


class AnswerTooLarge(Exception):
    """The body went past its byte limit; what was read of it is dropped."""


class ServiceClient:
    unavailable: type[ServiceUnavailable] = ServiceUnavailable
    rejected: type[ServiceRejected] = ServiceRejected
    retry_statuses: frozenset[int] = frozenset()  # 4xx worth retrying, besides every 5xx
    backoff_s: float = 0.5
    # The largest answer read. The environment's /evaluate with PNGs is the largest of this project's own answers
    # (64 paintings of about a megabyte in base64); a client of a smaller or untrusted answer sets its own.
    max_answer_bytes: int = 256 * 1024 * 1024

    def __init__(self, base_url: str, token: str | None = None, timeout_s: float = 120.0, retries: int = 2):
        headers = {"authorization": f"Bearer {token}"} if token else {}
        self._http = httpx.AsyncClient(base_url=base_url.rstrip("/"), timeout=timeout_s, headers=headers)
        self._retries = retries

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    async def close(self) -> None:
        await self._http.aclose()

    async def probe(self, path: str, timeout_s: float = 2.0) -> bool:
        """One quick GET, no retries: for health pages, which must answer fast. Its body is never read."""
        try:
            async with self._http.stream("GET", path, timeout=timeout_s) as response:
                return response.status_code < 400
        except httpx.RequestError:
            return False

    async def _request(self, method: str, path: str, body: dict | None = None, answer_on=frozenset()) -> httpx.Response:
        """`answer_on`: error statuses whose body is still an answer (a 503 that carries a result). The response
        returned holds its whole body, at most `max_answer_bytes` of it; a larger answer is `unavailable` at once
        (asking again would only fetch it again)."""
        last_error, last_kind = "", None
        for attempt in range(self._retries + 1):
            wait = self.backoff_s * 2**attempt * random.uniform(0.5, 1.5)
            try:
                response = await self._send(method, path, body, answer_on)
            except httpx.RequestError as error:  # transport errors and timeouts, an undecodable body, redirect loops
                last_error, last_kind = f"{type(error).__name__}: {error}", type(error).__name__
            except AnswerTooLarge:
                message = f"{method} {path}: the answer is over {self.max_answer_bytes} bytes; it was not read"
                raise self.unavailable(message, kind="answer too large") from None
            else:
                status = response.status_code
                if status < 400 or status in answer_on:
                    return response
                quoted = response.text[:QUOTED_CHARS]
                if status < 500 and status not in self.retry_statuses:
                    raise self.rejected(f"{method} {path}: HTTP {status}: {quoted}", kind=f"HTTP {status}")
                last_error, last_kind = f"HTTP {status}: {quoted}", f"HTTP {status}"
                wait = _retry_after(response) or wait
            if attempt < self._retries:
                await asyncio.sleep(wait)
        raise self.unavailable(f"{method} {path}: {last_error}", kind=last_kind)

    async def _send(self, method: str, path: str, body: dict | None, answer_on) -> httpx.Response:
        """One request; the body read up to its limit: an answer's to `max_answer_bytes` (past it, AnswerTooLarge),
        an error's to ERROR_BODY_BYTES (the rest is left unread)."""
        async with self._http.stream(method, path, json=body) as streamed:
            status = streamed.status_code
            answer = status < 400 or status in answer_on
            limit = self.max_answer_bytes if answer else ERROR_BODY_BYTES
            declared = streamed.headers.get("content-length", "")
            if answer and declared.isdigit() and int(declared) > limit:
                raise AnswerTooLarge
            chunks, size = [], 0
            async for chunk in streamed.aiter_bytes():  # decoded: the limit holds for a compressed answer too
                size += len(chunk)
                if size > limit:
                    if answer:
                        raise AnswerTooLarge
                    chunks.append(chunk[: limit - (size - len(chunk))])
                    break
                chunks.append(chunk)
        kept = {name: value for name, value in streamed.headers.items() if name in ("content-type", "retry-after")}
        return httpx.Response(status, headers=kept, content=b"".join(chunks), request=streamed.request)


def _retry_after(response: httpx.Response) -> float | None:
    """Retry-After in seconds or as an HTTP date, capped; None when absent or unreadable."""
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = (parsedate_to_datetime(value) - datetime.now(timezone.utc)).total_seconds()
        except (TypeError, ValueError):
            return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER_S)

"""The HTTP client every typed service client builds on: bearer token, timeouts,
and one retry policy. Transport errors, timeouts, 5xx and `retry_statuses` are
retried with jittered exponential backoff, honouring Retry-After; any other 4xx
is the caller's mistake and is raised at once."""

from __future__ import annotations

import asyncio
import random
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime

import httpx

MAX_RETRY_AFTER_S = 60.0


class ServiceUnavailable(Exception):
    """No answer came: the service is down, overloaded or failing. Never a model failure."""


class ServiceRejected(Exception):
    """The service refused the request itself (4xx): retrying cannot help."""


class ServiceClient:
    unavailable: type[ServiceUnavailable] = ServiceUnavailable
    rejected: type[ServiceRejected] = ServiceRejected
    retry_statuses: frozenset[int] = frozenset()  # 4xx worth retrying, besides every 5xx
    backoff_s: float = 0.5

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
        """One quick GET, no retries: for health pages, which must answer fast."""
        try:
            response = await self._http.get(path, timeout=timeout_s)
        except httpx.TransportError:
            return False
        return response.status_code < 400

    async def _request(self, method: str, path: str, body: dict | None = None, answer_on=frozenset()) -> httpx.Response:
        """`answer_on`: error statuses whose body is still an answer (a 503 that carries a result)."""
        last_error = ""
        for attempt in range(self._retries + 1):
            wait = self.backoff_s * 2**attempt * random.uniform(0.5, 1.5)
            try:
                response = await self._http.request(method, path, json=body)
            except httpx.TransportError as error:  # timeouts included
                last_error = f"{type(error).__name__}: {error}"
            else:
                status = response.status_code
                if status < 400 or status in answer_on:
                    return response
                if status < 500 and status not in self.retry_statuses:
                    raise self.rejected(f"{method} {path}: HTTP {status}: {response.text[:300]}")
                last_error = f"HTTP {status}: {response.text[:300]}"
                wait = _retry_after(response) or wait
            if attempt < self._retries:
                await asyncio.sleep(wait)
        raise self.unavailable(f"{method} {path}: {last_error}")


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

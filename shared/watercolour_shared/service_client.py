"""The HTTP client every typed service client builds on: bearer token, timeouts,
and one retry policy. Transport errors, timeouts and 5xx are retried with
backoff; a 4xx is the caller's mistake and is raised at once."""

from __future__ import annotations

import asyncio

import httpx


class ServiceUnavailable(Exception):
    """No answer came: the service is down, overloaded or failing. Never a model failure."""


class ServiceRejected(Exception):
    """The service refused the request itself (4xx): retrying cannot help."""


class ServiceClient:
    unavailable: type[ServiceUnavailable] = ServiceUnavailable
    rejected: type[ServiceRejected] = ServiceRejected

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

    async def health(self) -> dict:
        return (await self._request("GET", "/health")).json()

    async def _request(self, method: str, path: str, body: dict | None = None, answer_on=frozenset()) -> httpx.Response:
        """`answer_on`: error statuses whose body is still an answer (a 503 that carries a result)."""
        last_error = ""
        for attempt in range(self._retries + 1):
            try:
                response = await self._http.request(method, path, json=body)
            except httpx.TransportError as error:  # timeouts included
                last_error = f"{type(error).__name__}: {error}"
            else:
                if response.status_code < 400 or response.status_code in answer_on:
                    return response
                if response.status_code < 500:
                    raise self.rejected(f"{method} {path}: HTTP {response.status_code}: {response.text[:300]}")
                last_error = f"HTTP {response.status_code}: {response.text[:300]}"
            if attempt < self._retries:
                await asyncio.sleep(0.5 * 2**attempt)
        raise self.unavailable(f"{method} {path}: {last_error}")

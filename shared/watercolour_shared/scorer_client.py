"""Typed async client of the scoring service (the environment's HPSv3 term).

Retries on timeouts, transport errors and 5xx only; a 4xx is the caller's
mistake and is not retried. When no answer comes, ScorerUnavailable is raised:
the caller reports the term as unavailable, never as a score of 0.
"""

from __future__ import annotations

import asyncio
import base64

import httpx

from watercolour_shared.score_wire import DEFAULT_PROMPT, ScoreRequest, ScoreResponse


class ScorerUnavailable(Exception):
    """The scorer could not answer (down, overloaded, or failing)."""


class ScorerRejected(Exception):
    """The scorer refused the request itself (4xx): retrying cannot help."""


class ScorerClient:
    def __init__(self, base_url: str, token: str | None = None, timeout_s: float = 120.0, retries: int = 2):
        headers = {"authorization": f"Bearer {token}"} if token else {}
        self._http = httpx.AsyncClient(base_url=base_url.rstrip("/"), timeout=timeout_s, headers=headers)
        self._retries = retries

    async def __aenter__(self) -> ScorerClient:
        return self

    async def __aexit__(self, *exc) -> None:
        await self._http.aclose()

    async def health(self) -> dict:
        response = await self._http.get("/health")
        response.raise_for_status()
        return response.json()

    async def score(self, pngs: list[bytes], prompt: str = DEFAULT_PROMPT) -> ScoreResponse:
        request = ScoreRequest(images=[base64.b64encode(png).decode() for png in pngs], prompt=prompt)
        body = request.model_dump(mode="json")
        last_error = ""
        for attempt in range(self._retries + 1):
            try:
                response = await self._http.post("/score", json=body)
            except httpx.TransportError as error:  # timeouts included
                last_error = f"{type(error).__name__}: {error}"
            else:
                if response.status_code < 400:
                    return ScoreResponse.model_validate_json(response.content)
                if response.status_code < 500:
                    raise ScorerRejected(f"HTTP {response.status_code}: {response.text[:300]}")
                last_error = f"HTTP {response.status_code}: {response.text[:300]}"
            if attempt < self._retries:
                await asyncio.sleep(0.5 * 2**attempt)
        raise ScorerUnavailable(last_error)

"""Typed async HTTP client of the render environment (what the trainer and the CLI use).

Transport failures and 5xx answers without a result raise EnvUnavailable: a
caller drops that rollout, it never scores it 0.
"""

from __future__ import annotations

import asyncio

import httpx

from watercolour_shared.render_wire import (
    EpisodeOptions,
    EvaluateRequest,
    EvaluateResponse,
    Evaluation,
    RenderRequest,
    RenderResult,
)

RETRYABLE_STATUS = {502, 504}


class EnvUnavailable(Exception):
    """The environment could not be reached or failed without an answer."""


class EnvClient:
    def __init__(self, base_url: str, timeout_s: float = 600.0, retries: int = 2, token: str | None = None):
        headers = {"authorization": f"Bearer {token}"} if token else {}
        self._http = httpx.AsyncClient(base_url=base_url.rstrip("/"), timeout=timeout_s, headers=headers)
        self._retries = retries

    async def __aenter__(self) -> EnvClient:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    async def close(self) -> None:
        await self._http.aclose()

    async def health(self) -> dict:
        response = await self._send("GET", "/health")
        return response.json()

    async def render(self, reply: str, seed: int = 0, include_png: bool = True) -> RenderResult:
        request = RenderRequest(reply=reply, seed=seed, include_png=include_png)
        response = await self._send("POST", "/render", request.model_dump(mode="json"), answer_on={503})
        return RenderResult.model_validate_json(response.content)

    async def evaluate(
        self, replies: list[str], seed: int = 0, options: EpisodeOptions | None = None, include_png: bool = False
    ) -> list[Evaluation]:
        request = EvaluateRequest(replies=replies, seed=seed, options=options or EpisodeOptions(), include_png=include_png)
        response = await self._send("POST", "/evaluate", request.model_dump(mode="json"))
        return EvaluateResponse.model_validate_json(response.content).results

    async def _send(self, method: str, path: str, body: dict | None = None, answer_on: set[int] = frozenset()):
        last_error = ""
        for attempt in range(self._retries + 1):
            try:
                response = await self._http.request(method, path, json=body)
            except httpx.TransportError as error:
                last_error = f"{type(error).__name__}: {error}"
            else:
                if response.status_code < 400 or response.status_code in answer_on:
                    return response
                last_error = f"HTTP {response.status_code}: {response.text[:300]}"
                if response.status_code not in RETRYABLE_STATUS:
                    break
            if attempt < self._retries:
                await asyncio.sleep(0.5 * 2**attempt)
        raise EnvUnavailable(f"{method} {path}: {last_error}")

"""Typed async HTTP client of the render environment (what the trainer and the CLI use).

When no answer comes, EnvUnavailable is raised: a caller drops that rollout,
it never scores it 0.
"""

from __future__ import annotations

from watercolour_shared.readiness import Readiness
from watercolour_shared.render_wire import (
    EpisodeOptions,
    EvaluateRequest,
    EvaluateResponse,
    Evaluation,
    RenderRequest,
    RenderResult,
)
from watercolour_shared.service_client import ServiceClient, ServiceRejected, ServiceUnavailable
from watercolour_shared.timeouts import CLIENT_TIMEOUT_S


class EnvUnavailable(ServiceUnavailable):
    """The environment could not be reached or failed without an answer."""


class EnvRejected(ServiceRejected):
    """The environment refused the request (malformed, too large)."""


class EnvHttpClient(ServiceClient):
    """The environment's plain-HTTP batch calls; OpenEnv's WebSocket client is watercolour_env.client.WatercolourEnv."""

    unavailable = EnvUnavailable
    rejected = EnvRejected

    def __init__(self, base_url: str, token: str | None = None, timeout_s: float = CLIENT_TIMEOUT_S, retries: int = 2):
        super().__init__(base_url, token, timeout_s, retries)

    async def readiness(self) -> Readiness:
        """GET /ready: whether each reward term can answer now (a 503 carries the same answer)."""
        response = await self._request("GET", "/ready", answer_on={503})
        return Readiness.model_validate_json(response.content)

    async def render(self, reply: str, seed: int = 0, include_png: bool = True) -> RenderResult:
        request = RenderRequest(reply=reply, seed=seed, include_png=include_png)
        # A 503 from /render carries the result that says why it is unavailable.
        response = await self._request("POST", "/render", request.model_dump(mode="json"), answer_on={503})
        return RenderResult.model_validate_json(response.content)

    async def evaluate(
        self, replies: list[str], seed: int = 0, options: EpisodeOptions | None = None, include_png: bool = False
    ) -> list[Evaluation]:
        request = EvaluateRequest(replies=replies, seed=seed, options=options or EpisodeOptions(), include_png=include_png)
        response = await self._request("POST", "/evaluate", request.model_dump(mode="json"))
        return EvaluateResponse.model_validate_json(response.content).results

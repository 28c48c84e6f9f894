"""Typed async client of the scoring service (the environment's HPSv3 term).

When no answer comes, ScorerUnavailable is raised: the caller reports the
term as unavailable, never as a score of 0.
"""

from __future__ import annotations

import base64

from watercolour_shared.score_wire import DEFAULT_PROMPT, ScoreRequest, ScoreResponse
from watercolour_shared.service_client import ServiceClient, ServiceRejected, ServiceUnavailable


class ScorerUnavailable(ServiceUnavailable):
    """The scorer could not answer (down, loading, overloaded, or failing)."""


class ScorerRejected(ServiceRejected):
    """The scorer refused the request (a bad image, a missing token)."""


class ScorerClient(ServiceClient):
    unavailable = ScorerUnavailable
    rejected = ScorerRejected

    async def score(self, pngs: list[bytes], prompt: str = DEFAULT_PROMPT) -> ScoreResponse:
        request = ScoreRequest(images=[base64.b64encode(png).decode() for png in pngs], prompt=prompt)
        response = await self._request("POST", "/score", request.model_dump(mode="json"))
        return ScoreResponse.model_validate_json(response.content)

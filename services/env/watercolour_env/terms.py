"""Model-judged reward terms the environment plugs into its RewardAssembler."""

from __future__ import annotations

import base64
import logging

from watercolour_env.reward import TermScore
from watercolour_shared.render_wire import RenderResult
from watercolour_shared.scorer_client import ScorerClient, ScorerRejected, ScorerUnavailable

log = logging.getLogger(__name__)


class HpsTerm:
    """HPSv3 through the scoring service. The scorer's micro-batcher merges the
    concurrent calls of one group into few forward passes. None when it cannot answer."""

    def __init__(self, client: ScorerClient, prompt: str):
        self.client = client
        self.prompt = prompt

    async def score(self, result: RenderResult, subject: str, seed: int) -> TermScore:
        try:
            response = await self.client.score([base64.b64decode(result.png_base64 or "")], self.prompt)
        except (ScorerUnavailable, ScorerRejected) as error:
            log.warning("HPSv3 term unavailable: %s", error)
            return TermScore(None, {"error": str(error)})
        [image] = response.scores
        details = {"mu": image.mu, "sigma": image.sigma, "backend": response.backend, "model_version": response.model_version}
        return TermScore(image.score, details)

    async def reachable(self) -> bool:
        try:
            return bool((await self.client.ready()).get("ready"))
        except (ScorerUnavailable, ScorerRejected):
            return False

    async def close(self) -> None:
        await self.client.close()

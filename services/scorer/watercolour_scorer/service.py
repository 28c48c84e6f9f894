"""The scoring service's work, apart from HTTP: check images, answer from the
cache, batch the rest through the model, normalise."""

from __future__ import annotations

import asyncio
import json
import logging

from watercolour_scorer.backends import build_backend
from watercolour_scorer.batcher import MicroBatcher
from watercolour_scorer.images import check_png
from watercolour_scorer.settings import ScorerSettings
from watercolour_shared.cache_keys import score_key
from watercolour_shared.redis_cache import RedisCache
from watercolour_shared.score_wire import ImageScore, ScoreResponse

log = logging.getLogger(__name__)


class NotReady(Exception):
    """The model is still loading, or failed to load."""


class ScoringService:
    def __init__(self, settings: ScorerSettings):
        self.settings = settings
        self.backend = build_backend(settings)
        self.batcher = MicroBatcher(self.backend, settings.max_batch, settings.max_wait_ms / 1000)
        self.cache = RedisCache(settings.redis_url, settings.cache_ttl_s)
        self.ready = False
        self.load_error: str | None = None
        self._loading: asyncio.Task | None = None

    async def start(self) -> None:
        self.batcher.start()
        self._loading = asyncio.create_task(self._load())  # held: the event loop keeps only a weak reference

    async def _load(self) -> None:
        try:
            await asyncio.to_thread(self.backend.load)
        except Exception as error:  # noqa: BLE001 - reported on /ready, the process stays up
            log.exception("the %s backend failed to load", self.backend.name)
            self.load_error = f"{type(error).__name__}: {error}"
            return
        self.ready = True

    async def close(self) -> None:
        await self.batcher.close()
        await self.cache.close()

    async def score(self, pngs: list[bytes], prompt: str) -> ScoreResponse:
        if not self.ready:
            raise NotReady(self.load_error or f"the {self.backend.name} model is still loading")
        checked = [check_png(png, index, self.settings.max_image_side) for index, png in enumerate(pngs)]
        keys = [score_key(c.digest, prompt, self.backend.name, self.backend.version) for c in checked]
        found = await asyncio.gather(*(self.cache.get(key) for key in keys))
        missing = [i for i, raw in enumerate(found) if raw is None]
        fresh = await self.batcher.score([checked[i].image for i in missing], prompt) if missing else []
        raw_scores: list[tuple[float, float, bool]] = [(*json.loads(raw), True) if raw else None for raw in found]
        for index, (mu, sigma) in zip(missing, fresh, strict=True):
            raw_scores[index] = (mu, sigma, False)
            await self.cache.put(keys[index], json.dumps([mu, sigma]))
        return ScoreResponse(
            scores=[
                ImageScore(mu=mu, sigma=sigma, score=self.settings.normalise(mu), cached=cached)
                for mu, sigma, cached in raw_scores
            ],
            prompt=prompt,
            backend=self.backend.name,
            model=self.backend.model,
            model_version=self.backend.version,
            normalisation=self.settings.normalisation,
        )

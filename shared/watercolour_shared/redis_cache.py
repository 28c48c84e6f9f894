"""A Redis cache of serialised answers (renders, scores, verdicts). Redis being
down costs speed, never correctness: the cache switches itself off for a
while, logs a warning, and answers misses."""

from __future__ import annotations

import logging
import time

import redis.asyncio as redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

RETRY_AFTER_S = 15.0
SOCKET_TIMEOUT_S = 0.5


class RedisCache:
    def __init__(self, url: str, ttl_s: int):
        # One immediate retry on a dropped connection: after Redis restarts, each pooled connection fails
        # once ("closed by server") and a fresh one answers; without it the cache would switch itself off.
        self._client = redis.Redis.from_url(
            url,
            socket_timeout=SOCKET_TIMEOUT_S,
            socket_connect_timeout=SOCKET_TIMEOUT_S,
            retry=Retry(NoBackoff(), retries=1),
            retry_on_error=[RedisConnectionError],
        )
        self._ttl_s = ttl_s
        self._down_until = 0.0
        self.stats = {"hits": 0, "misses": 0, "errors": 0}

    @property
    def available(self) -> bool:
        return time.monotonic() >= self._down_until

    async def get(self, key: str) -> bytes | None:
        if not self.available:
            return None
        try:
            raw = await self._client.get(key)
        except (RedisError, OSError) as error:
            self._went_down(error)
            return None
        self.stats["misses" if raw is None else "hits"] += 1
        return raw

    async def put(self, key: str, value: str | bytes) -> None:
        if not self.available or self._ttl_s == 0:
            return
        try:
            await self._client.set(key, value, ex=self._ttl_s)
        except (RedisError, OSError) as error:
            self._went_down(error)
        except ValueError as error:  # a value that does not encode: the answer stands, uncached
            log.error("not cached, the value does not encode: %s", error)

    async def ping(self) -> bool:
        try:
            return bool(await self._client.ping())
        except (RedisError, OSError):
            return False

    async def close(self) -> None:
        await self._client.aclose()

    def _went_down(self, error: Exception) -> None:
        self.stats["errors"] += 1
        if self.available:
            log.warning("Redis cache unavailable (%s); working without cache for %.0f s", error, RETRY_AFTER_S)
        self._down_until = time.monotonic() + RETRY_AFTER_S

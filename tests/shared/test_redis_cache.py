"""The Redis cache against the real Redis: a connection Redis dropped (a restart) costs nothing."""

from __future__ import annotations

import uuid

import redis.asyncio as redis

from watercolour_shared.redis_cache import RedisCache

URL = "redis://127.0.0.1:6379/0"


async def test_a_connection_redis_dropped_is_replaced_without_switching_the_cache_off():
    cache, admin = RedisCache(URL, ttl_s=60), redis.Redis.from_url(URL)
    key = f"watercolour-test:{uuid.uuid4().hex}"
    try:
        await cache.put(key, "painted")
        connection_id = await cache._client.client_id()
        await admin.execute_command("CLIENT", "KILL", "ID", connection_id)
        assert await cache.get(key) == b"painted"
        assert cache.available and cache.stats["errors"] == 0
    finally:
        await admin.delete(key)
        await cache.close()
        await admin.aclose()

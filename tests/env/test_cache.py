"""The Redis render cache against the real Redis, and what happens without it."""

import asyncio
import logging

import redis

from tests.conftest import fresh_seed, sketch
from watercolour_env.pipeline import RenderPipeline
from watercolour_env.render.renderer import Renderer
from watercolour_shared.cache_keys import render_key
from watercolour_shared.redis_cache import RedisCache


async def test_a_repeat_render_is_a_cache_hit(services):
    seed = fresh_seed()
    renders_before = services.renderer.browsers.stats["renders"]
    first = await services.pipeline.run(sketch("two-washes.js"), seed)
    second = await services.pipeline.run(sketch("two-washes.js"), seed)
    assert (first.cached, second.cached) == (False, True)
    assert second.png_base64 == first.png_base64
    assert second.violations == first.violations
    assert services.renderer.browsers.stats["renders"] == renders_before + 1


async def test_identical_renders_in_flight_are_drawn_once(services):
    seed = fresh_seed()
    renders_before = services.renderer.browsers.stats["renders"]
    results = await asyncio.gather(*(services.pipeline.run(sketch("two-washes.js"), seed) for _ in range(6)))
    assert services.renderer.browsers.stats["renders"] == renders_before + 1
    assert {result.status for result in results} == {"passed"}
    assert len({result.png_base64 for result in results}) == 1
    assert len({id(result) for result in results}) == 6  # every caller owns its answer


async def test_changed_code_misses_the_cache(services):
    seed = fresh_seed()
    await services.pipeline.run(sketch("two-washes.js"), seed)
    changed = await services.pipeline.run(sketch("two-washes.js").replace("'#b83b5e'", "'#5e3bb8'"), seed)
    assert changed.cached is False


async def test_redis_down_means_no_cache_a_warning_and_correct_answers(services, caplog):
    dead = RedisCache("redis://127.0.0.1:1/0", ttl_s=60)
    pipeline = RenderPipeline(services.renderer, dead, services.rules, services.settings.max_code_chars)
    seed = fresh_seed()
    with caplog.at_level(logging.WARNING, logger="watercolour_shared.redis_cache"):
        first = await pipeline.run(sketch("two-washes.js"), seed)
        second = await pipeline.run(sketch("two-washes.js"), seed)
    assert first.status == second.status == "passed"
    assert not first.cached and not second.cached
    assert any("Redis cache unavailable" in record.getMessage() for record in caplog.records)
    await dead.close()


async def test_unavailable_results_are_never_cached(settings, rules):
    small = settings.model_copy(update={"browsers": 1, "max_pending": 1})
    renderer = Renderer(small, rules)
    cache = RedisCache(settings.redis_url, ttl_s=60)
    pipeline = RenderPipeline(renderer, cache, rules, settings.max_code_chars)
    await renderer.start()
    try:
        seeds = [fresh_seed() for _ in range(3)]
        results = await asyncio.gather(*(pipeline.run(sketch("two-washes.js"), seed) for seed in seeds))
    finally:
        await renderer.close()
        await cache.close()
    statuses = [result.status for result in results]
    assert statuses.count("unavailable") == 1, statuses
    refused_seed = seeds[statuses.index("unavailable")]
    key = render_key(sketch("two-washes.js").strip("\n"), refused_seed, (600, 600), rules.digest, renderer.version)
    assert redis.Redis.from_url(settings.redis_url).exists(key) == 0


async def test_load_dependent_verdicts_are_not_cached(settings, rules):
    quick = settings.model_copy(update={"browsers": 1, "render_deadline_s": 3.0})
    renderer = Renderer(quick, rules)
    cache = RedisCache(settings.redis_url, ttl_s=60)
    pipeline = RenderPipeline(renderer, cache, rules, settings.max_code_chars)
    loop = sketch("two-washes.js").replace("brush.noStroke();", "while (true) {} brush.noStroke();")
    seed = fresh_seed()
    await renderer.start()
    try:
        first = await pipeline.run(loop, seed)
        second = await pipeline.run(loop, seed)
    finally:
        await renderer.close()
        await cache.close()
    assert [v.code.value for v in first.violations] == ["render_timeout"]
    assert second.cached is False

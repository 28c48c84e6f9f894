"""The environment's gate and renderer for the pool generator: a running environment over HTTP,
or the environment's own pipeline with a local browser."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from watercolour_shared.env_client import EnvClient
from watercolour_shared.render_wire import RenderResult

Render = Callable[[str, int], Awaitable[RenderResult]]


@asynccontextmanager
async def remote(env_url: str) -> AsyncIterator[Render]:
    async with EnvClient(env_url) as client:
        yield lambda reply, seed: client.render(reply, seed=seed, include_png=True)


@asynccontextmanager
async def local() -> AsyncIterator[Render]:
    from watercolour_env.services import EnvServices
    from watercolour_env.settings import EnvSettings

    services = EnvServices.build(EnvSettings(browsers=1), reward_terms=False)
    await services.start()
    try:
        yield services.pipeline.run
    finally:
        await services.close()

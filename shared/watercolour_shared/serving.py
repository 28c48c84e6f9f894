"""How every service process is assembled and started. FastAPI and uvicorn are
the services' own dependencies, so they are imported here only when used."""

from __future__ import annotations

import logging
from contextlib import asynccontextmanager
from typing import Protocol


class Lifecycle(Protocol):
    async def start(self) -> None: ...

    async def close(self) -> None: ...


def service_app(title: str, resource: Lifecycle):
    """A FastAPI app that starts `resource` before serving and closes it on shutdown."""
    from fastapi import FastAPI

    @asynccontextmanager
    async def lifespan(_app):
        await resource.start()
        yield
        await resource.close()

    return FastAPI(title=title, lifespan=lifespan)


def serve(app, settings) -> None:
    """Run `app` on the `host` and `port` of the service's settings."""
    import uvicorn

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    uvicorn.run(app, host=settings.host, port=settings.port)

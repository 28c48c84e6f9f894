"""How every service process is assembled and started. FastAPI and uvicorn are
the services' own dependencies, so they are imported here only when used."""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import asynccontextmanager
from typing import Any, Protocol


class Lifecycle(Protocol):
    async def start(self) -> None: ...

    async def close(self) -> None: ...


def service_app(title: str, *resources: Lifecycle):
    """A FastAPI app that starts `resources` in order before serving and closes them in reverse on shutdown."""
    from fastapi import FastAPI
    from fastapi.exceptions import RequestValidationError

    @asynccontextmanager
    async def lifespan(_app):
        for resource in resources:
            await resource.start()
        yield
        for resource in reversed(resources):
            await resource.close()

    app = FastAPI(title=title, lifespan=lifespan)
    app.add_exception_handler(RequestValidationError, _refused_request)
    return app


async def _refused_request(_request, error):
    """422 with where and why each field was refused, without echoing what was sent: FastAPI's own answer
    repeats the input, which may be a 2 MB reply, or hold lone surrogates that no JSON encoder writes."""
    from fastapi.responses import JSONResponse

    from watercolour_shared.sketch_text import MESSAGE_CHARS, safe_text

    def said(value: object) -> object:
        return value if isinstance(value, int) else safe_text(str(value), MESSAGE_CHARS)

    detail = [
        {"loc": [said(part) for part in item["loc"]], "msg": said(item["msg"]), "type": item["type"]}
        for item in error.errors()[:20]
    ]
    return JSONResponse({"detail": detail}, status_code=422)


class BuiltAtStartup:
    """A server module's `app`: `build()` runs when the server starts (the ASGI lifespan), not at import.

    Building reads the settings and may reach the network (a Hub reference pool, a model's files), so
    importing a server module, as tools and tests do, must not build it. The built app's own lifespan
    then starts and closes its resources as usual.
    """

    def __init__(self, build: Callable[[], Any]):
        self._build = build
        self._app = None

    async def __call__(self, scope, receive, send) -> None:
        if self._app is None:
            if scope["type"] != "lifespan":
                raise RuntimeError("this app is built at start-up: serve it with the ASGI lifespan on")
            self._app = self._build()
        await self._app(scope, receive, send)


def serve(app, settings, **uvicorn_options) -> None:
    """Run `app` on the `host` and `port` of the service's settings."""
    import uvicorn

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    uvicorn.run(app, host=settings.host, port=settings.port, **uvicorn_options)

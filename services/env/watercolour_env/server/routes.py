"""The environment's own HTTP routes on its services: /health, /ready, /render and /evaluate.

They import nothing of OpenEnv's: app.py mounts OpenEnv's session routes beside them, and bench/env_process.py
serves them alone on hosts that have the server's packages but not OpenEnv's (which pulls in Gradio and MCP).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError

from watercolour_env.services import EnvServices
from watercolour_env.settings import EnvSettings
from watercolour_shared.render_wire import (
    EpisodeOptions,
    EvaluateRequest,
    EvaluateResponse,
    RenderRequest,
    RenderResult,
    episode_refused,
)


def add_service_routes(
    app: FastAPI, services: EnvServices, settings: EnvSettings, more_health: Callable[[], dict] = dict
) -> None:
    """`more_health`: what the caller's own parts add to /health (app.py: OpenEnv's sessions)."""

    @app.exception_handler(ValidationError)
    async def refused_episode(request: Request, error: ValidationError) -> Response:
        """Episode options refused where FastAPI did not read them (OpenEnv's /reset) or by the environment's own
        check (its pool): the app's 422 for any refused request. Any other ValidationError is ours: a 500 as before."""
        if error.title != EpisodeOptions.__name__:
            raise error
        return await app.exception_handlers[RequestValidationError](request, RequestValidationError(error.errors()))

    @app.get("/health")
    async def health() -> dict:
        """This process alone: it never calls the judge or the scorer (containers ask every 15 s)."""
        browsers = services.renderer.browsers
        return {
            "status": "healthy",
            "browsers": browsers.size,
            "idle_browsers": browsers.idle,
            "queued_renders": browsers.pending,
            "browser_stats": browsers.stats,
            "network_isolated": browsers.network_isolated,
            "webgl": None if browsers.webgl is None else {**asdict(browsers.webgl), "on_gpu": browsers.webgl.on_gpu},
            "cache": "up" if services.cache and await services.cache.ping() else "down",
            **more_health(),
            "renderer": services.renderer.version,
            "rules": services.rules.digest,
            "allowlist": sorted(services.rules.allowed_methods),
            "default_weights": settings.default_weights().model_dump(),
            "terms_configured": services.rewards.configured_terms(),
            "terms": services.rewards.described_terms(),
        }

    @app.get("/ready")
    async def ready() -> JSONResponse:
        """503 while a term the default weights need cannot answer; the body says which and why."""
        readiness = await services.readiness()
        return JSONResponse(readiness.model_dump(mode="json"), status_code=200 if readiness.ready else 503)

    @app.post("/render", response_model=RenderResult, response_model_exclude_none=True)
    async def render(request: RenderRequest, response: Response) -> RenderResult:
        result = await services.pipeline.run(request.reply, request.seed)
        if result.status == "unavailable":
            response.status_code = 503
        if not request.include_png:
            result = result.model_copy(update={"png_base64": None})
        return result

    @app.post("/evaluate", response_model=EvaluateResponse)
    async def evaluate(request: EvaluateRequest) -> EvaluateResponse:
        if request.options.revisions:
            reason = "/evaluate paints each reply once: revisions belong to an episode, through reset and step"
            raise episode_refused("revisions", reason, request.options.revisions)
        services.check_episode(request.options)
        results = await services.evaluate_group(request.replies, request.seed, request.options)
        if not request.include_png:
            for item in results:
                item.render.png_base64 = None
        return EvaluateResponse(results=results)

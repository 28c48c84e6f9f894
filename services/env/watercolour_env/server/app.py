"""The environment's HTTP server: OpenEnv's reset/step/ws plus a stateless render, a batch call for
whole GRPO groups, a local /health for container checks and a /ready that asks the reward terms.

`app` is built when the server starts, not at import: building loads the reference pool (from the
Hub, unless it is a local folder) and starts nothing else until the lifespan does.
"""

from __future__ import annotations

from dataclasses import asdict

from fastapi import FastAPI, Response
from fastapi.responses import JSONResponse

from watercolour_env.server.sessions import OpenEnvSessions
from watercolour_env.services import EnvServices
from watercolour_env.settings import EnvSettings, get_settings
from watercolour_shared.render_wire import (
    EvaluateRequest,
    EvaluateResponse,
    RenderRequest,
    RenderResult,
)
from watercolour_shared.serving import BuiltAtStartup, serve, service_app


def build_app(settings: EnvSettings | None = None) -> FastAPI:
    settings = settings or get_settings()
    services = EnvServices.build(settings)
    sessions = OpenEnvSessions(services)

    app = service_app("watercolour-env", services, sessions)
    app.state.services = services

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
            "sessions": sessions.health(),
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
        results = await services.evaluate_group(request.replies, request.seed, request.options)
        if not request.include_png:
            for item in results:
                item.render.png_base64 = None
        return EvaluateResponse(results=results)

    sessions.add_routes_to(app)
    return app


app = BuiltAtStartup(build_app)


def main() -> None:
    settings = get_settings()
    serve(app, settings, ws_ping_interval=settings.ws_ping_s, ws_ping_timeout=settings.ws_ping_s)


if __name__ == "__main__":
    main()

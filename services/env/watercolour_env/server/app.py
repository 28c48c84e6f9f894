"""The environment's HTTP server: OpenEnv's reset/step/ws plus a stateless render,
a batch call for whole GRPO groups, and a /health that says what works."""

from __future__ import annotations

from fastapi import FastAPI, Response
from openenv.core.env_server.http_server import create_app

from watercolour_env.models import WatercolourAction, WatercolourObservation, WatercolourState
from watercolour_env.server.watercolour_environment import WatercolourEnvironment
from watercolour_env.services import EnvServices
from watercolour_env.settings import EnvSettings, get_settings
from watercolour_shared.render_wire import (
    EvaluateRequest,
    EvaluateResponse,
    RenderRequest,
    RenderResult,
)
from watercolour_shared.serving import serve, service_app


def build_app(settings: EnvSettings | None = None) -> FastAPI:
    settings = settings or get_settings()
    services = EnvServices.build(settings)

    app = service_app("watercolour-env", services)
    app.state.services = services

    @app.get("/health")
    async def health() -> dict:
        pool = services.renderer.pool
        return {
            "status": "healthy",
            "browsers": pool.size,
            "idle_browsers": pool.idle,
            "queued_renders": pool.pending,
            "pool_stats": pool.stats,
            "network_isolated": pool.network_isolated,
            "cache": "up" if services.cache and await services.cache.ping() else "down",
            "renderer": services.renderer.version,
            "rules": services.rules.digest,
            "allowlist": sorted(services.rules.allowed_methods),
            "default_weights": settings.default_weights().model_dump(),
            "terms_configured": services.rewards.configured_terms(),
            "terms_reachable": await services.rewards.reachable_terms(),
            "terms": services.rewards.described_terms(),
        }

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

    openenv_app = create_app(
        lambda: WatercolourEnvironment(services),
        WatercolourAction,
        WatercolourObservation,
        env_name="watercolour",
        max_concurrent_envs=settings.max_sessions,
        state_cls=WatercolourState,
    )
    ours = {getattr(route, "path", None) for route in app.router.routes}
    app.router.routes.extend(r for r in openenv_app.router.routes if getattr(r, "path", None) not in ours)
    return app


app = build_app()


def main() -> None:
    serve(app, get_settings())


if __name__ == "__main__":
    main()

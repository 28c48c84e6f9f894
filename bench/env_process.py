"""The environment's batch call in a process of its own, for hosts that have the server's packages but not OpenEnv's.

services/env/watercolour_env/server/app.py serves /evaluate as `services.evaluate_group` on the same EnvServices
(settings from WATERCOLOUR_* variables, browser pool, gate, reward terms); it also mounts OpenEnv's session routes,
and OpenEnv pulls in Gradio and MCP, which a GPU host without a registry would have to be sent as wheels. This
serves /health, /ready and /evaluate exactly as app.py does, and nothing else. bench/grpo_step_bench.py starts it
for its real-environment steps.

    WATERCOLOUR_CHROMIUM_GL=software WATERCOLOUR_JUDGE=offline python bench/env_process.py
"""

from __future__ import annotations

from dataclasses import asdict

from fastapi import FastAPI
from fastapi.responses import JSONResponse

from watercolour_env.services import EnvServices
from watercolour_env.settings import get_settings
from watercolour_shared.render_wire import EvaluateRequest, EvaluateResponse
from watercolour_shared.serving import BuiltAtStartup, serve, service_app


def build_app() -> FastAPI:
    settings = get_settings()
    services = EnvServices.build(settings)
    app = service_app("watercolour-env", services)

    @app.get("/health")
    async def health() -> dict:
        browsers = services.renderer.browsers
        return {
            "status": "healthy",
            "browsers": browsers.size,
            "webgl": None if browsers.webgl is None else {**asdict(browsers.webgl), "on_gpu": browsers.webgl.on_gpu},
            "network_isolated": browsers.network_isolated,
            "cache": "up" if services.cache and await services.cache.ping() else "down",
            "renderer": services.renderer.version,
            "terms_configured": services.rewards.configured_terms(),
            "terms": services.rewards.described_terms(),
        }

    @app.get("/ready")
    async def ready() -> JSONResponse:
        readiness = await services.readiness()
        return JSONResponse(readiness.model_dump(mode="json"), status_code=200 if readiness.ready else 503)

    @app.post("/evaluate", response_model=EvaluateResponse)
    async def evaluate(request: EvaluateRequest) -> EvaluateResponse:
        results = await services.evaluate_group(request.replies, request.seed, request.options)
        if not request.include_png:
            for item in results:
                item.render.png_base64 = None
        return EvaluateResponse(results=results)

    return app


app = BuiltAtStartup(build_app)


if __name__ == "__main__":
    serve(app, get_settings())

"""The environment's batch call in a process of its own, for hosts that have the server's packages but not OpenEnv's.

services/env/watercolour_env/server/app.py serves /evaluate as `services.evaluate_group` on the same EnvServices
(settings from WATERCOLOUR_* variables, browser pool, gate, reward terms); it also mounts OpenEnv's session routes,
and OpenEnv pulls in Gradio and MCP, which a GPU host without a registry would have to be sent as wheels. This
serves the environment's own routes (server/routes.py: /health, /ready, /render, /evaluate), the very ones app.py
serves, without OpenEnv's. bench/grpo_step_bench.py starts it
for its real-environment steps.

    WATERCOLOUR_CHROMIUM_GL=software WATERCOLOUR_JUDGE=offline python bench/env_process.py
"""

from __future__ import annotations

from fastapi import FastAPI

from watercolour_env.server.routes import add_service_routes
from watercolour_env.services import EnvServices
from watercolour_env.settings import get_settings
from watercolour_shared.serving import BuiltAtStartup, serve, service_app


def build_app() -> FastAPI:
    settings = get_settings()
    services = EnvServices.build(settings)
    app = service_app("watercolour-env", services)
    add_service_routes(app, services, settings)
    return app


app = BuiltAtStartup(build_app)


if __name__ == "__main__":
    serve(app, get_settings())

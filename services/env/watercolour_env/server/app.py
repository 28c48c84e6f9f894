"""The environment's HTTP server: OpenEnv's reset/step/ws plus a stateless render, a batch call for
whole GRPO groups, a local /health for container checks and a /ready that asks the reward terms.

`app` is built when the server starts, not at import: building loads the reference pool (from the
Hub, unless it is a local folder) and starts nothing else until the lifespan does.
"""

from __future__ import annotations

from fastapi import FastAPI

from watercolour_env.server.routes import add_service_routes
from watercolour_env.server.sessions import OpenEnvSessions
from watercolour_env.services import EnvServices
from watercolour_env.settings import EnvSettings, get_settings
from watercolour_shared.serving import BuiltAtStartup, serve, service_app


def build_app(settings: EnvSettings | None = None) -> FastAPI:
    settings = settings or get_settings()
    services = EnvServices.build(settings)
    sessions = OpenEnvSessions(services)

    app = service_app("watercolour-env", services, sessions)
    app.state.services = services

    add_service_routes(app, services, settings, more_health=lambda: {"sessions": sessions.health()})
    sessions.add_routes_to(app)
    return app


app = BuiltAtStartup(build_app)


def main() -> None:
    settings = get_settings()
    serve(app, settings, ws_ping_interval=settings.ws_ping_s, ws_ping_timeout=settings.ws_ping_s)


if __name__ == "__main__":
    main()

"""OpenEnv's reset/step/ws routes and the sessions behind them: at most `max_sessions`, each closed once idle for
`session_idle_timeout_s` (OpenEnv's own reaper), counted in /health."""

from __future__ import annotations

from fastapi import FastAPI
from openenv.core.env_server.http_server import HTTPEnvServer
from openenv.core.env_server.types import ConcurrencyConfig

from watercolour_env.models import WatercolourAction, WatercolourObservation, WatercolourState
from watercolour_env.server.watercolour_environment import WatercolourEnvironment
from watercolour_env.services import EnvServices


class OpenEnvSessions:
    def __init__(self, services: EnvServices):
        settings = services.settings
        self.idle_timeout_s = settings.session_idle_timeout_s
        limits = ConcurrencyConfig(max_concurrent_envs=settings.max_sessions, session_timeout=self.idle_timeout_s)
        self._server = HTTPEnvServer(
            lambda: WatercolourEnvironment(services),
            WatercolourAction,
            WatercolourObservation,
            concurrency_config=limits,
            env_name="watercolour",
            state_cls=WatercolourState,
        )
        # OpenEnv registers its routes, and its reaper's start and stop hooks, on an app of its own.
        self._openenv_app = FastAPI()
        self._server.register_routes(self._openenv_app)

    def add_routes_to(self, app: FastAPI) -> None:
        """OpenEnv's routes, after the app's own: where both answer a path (/health), the app's wins."""
        ours = {getattr(route, "path", None) for route in app.router.routes}
        app.router.routes.extend(r for r in self._openenv_app.router.routes if getattr(r, "path", None) not in ours)

    # The app's lifespan starts and stops the reaper: OpenEnv's hooks are never run by an app that has a lifespan.
    async def start(self) -> None:
        for hook in self._openenv_app.router.on_startup:
            await hook()

    async def close(self) -> None:
        for hook in self._openenv_app.router.on_shutdown:
            await hook()

    def health(self) -> dict:
        capacity = self._server.get_capacity_status()
        return {"active": capacity.active_sessions, "max": capacity.max_sessions, "idle_timeout_s": self.idle_timeout_s}

"""OpenEnv client of the watercolour environment: one WebSocket session per client.

    async with WatercolourEnv(base_url="http://localhost:8000") as env:
        first = await env.reset(subject="a sunflower", weights=preset("hps-led").model_dump(), seed=7)
        result = await env.step(WatercolourAction(reply=completion))
        result.reward, result.observation.breakdown

It imports the wire models only, never server code. A step waits for a render queued behind other
sessions', drawn, judged and scored (watercolour_shared.timeouts), not OpenEnv's default 60 s.
"""

from __future__ import annotations

from openenv.core import EnvClient
from openenv.core.client_types import StepResult

from watercolour_env.models import WatercolourAction, WatercolourObservation, WatercolourState
from watercolour_shared.timeouts import CLIENT_TIMEOUT_S


class WatercolourEnv(EnvClient[WatercolourAction, WatercolourObservation, WatercolourState]):
    def __init__(self, base_url: str | None = None, message_timeout_s: float = CLIENT_TIMEOUT_S, **options):
        super().__init__(base_url, message_timeout_s=message_timeout_s, **options)

    def _step_payload(self, action: WatercolourAction) -> dict:
        return action.model_dump(mode="json", exclude={"metadata"})

    def _parse_result(self, payload: dict) -> StepResult[WatercolourObservation]:
        observation = WatercolourObservation.model_validate(
            {**payload.get("observation", {}), "done": payload.get("done", False), "reward": payload.get("reward")}
        )
        return StepResult(observation=observation, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict) -> WatercolourState:
        return WatercolourState.model_validate(payload)

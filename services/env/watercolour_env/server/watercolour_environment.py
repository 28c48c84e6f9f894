"""The OpenEnv environment: one episode is one painting.

`reset` picks the subject, seed and reward mix (per episode, no restart);
`step` gates, renders and rewards the policy's reply and ends the episode.
"""

from __future__ import annotations

import secrets
from typing import Any
from uuid import uuid4

from openenv.core.env_server.interfaces import Environment

from watercolour_env.models import WatercolourAction, WatercolourObservation, WatercolourState
from watercolour_env.services import EnvServices
from watercolour_shared.render_wire import EpisodeOptions
from watercolour_shared.reward import MixWeights, resolve_weights


def user_prompt(subject: str) -> str:
    return f"Paint {subject} in loose watercolour."


class WatercolourEnvironment(Environment[WatercolourAction, WatercolourObservation, WatercolourState]):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, services: EnvServices):
        super().__init__()
        self.services = services
        self._options = EpisodeOptions()
        self._state = WatercolourState(episode_id=str(uuid4()), step_count=0, subject=self._options.subject)

    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> WatercolourObservation:
        return self._begin(seed, episode_id, **kwargs)

    async def reset_async(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        subject: str | None = None,
        mix: str | None = None,
        weights: dict | None = None,
        **kwargs: Any,
    ) -> WatercolourObservation:
        return self._begin(seed, episode_id, subject=subject, mix=mix, weights=weights)

    def _begin(self, seed, episode_id, subject=None, mix=None, weights=None, **_ignored) -> WatercolourObservation:
        options = EpisodeOptions(
            subject=subject or EpisodeOptions().subject,
            mix=mix,
            weights=MixWeights.model_validate(weights) if weights is not None else None,
        )
        resolved = resolve_weights(self.services.settings.default_weights(), options.mix, options.weights)
        self._options = options
        self._state = WatercolourState(
            episode_id=episode_id or str(uuid4()),
            step_count=0,
            subject=options.subject,
            seed=seed if seed is not None else secrets.randbelow(2**31),
            weights=resolved,
        )
        return WatercolourObservation(subject=options.subject, prompt=user_prompt(options.subject), status="ready")

    def step(self, action: WatercolourAction, timeout_s: float | None = None, **kwargs: Any) -> WatercolourObservation:
        raise RuntimeError("the watercolour environment renders asynchronously: call step_async")

    async def step_async(
        self, action: WatercolourAction, timeout_s: float | None = None, **kwargs: Any
    ) -> WatercolourObservation:
        seed = action.seed if action.seed is not None else self._state.seed
        evaluation = await self.services.evaluate(action.reply, seed, self._options)
        self._state.step_count += 1
        render, reward = evaluation.render, evaluation.reward
        return WatercolourObservation(
            done=True,
            reward=reward.total,
            subject=self._options.subject,
            prompt=user_prompt(self._options.subject),
            status=render.status,
            render=render if action.include_png else render.model_copy(update={"png_base64": None}),
            breakdown=reward,
            unavailable_reason=render.unavailable_reason or reward.unavailable_reason,
        )

    @property
    def state(self) -> WatercolourState:
        return self._state

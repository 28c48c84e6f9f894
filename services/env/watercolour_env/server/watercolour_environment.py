"""The OpenEnv environment: one episode is one painting.

`reset` picks the subject, seed and reward mix (per episode, no restart);
`step` gates, renders and rewards the policy's reply and ends the episode.
"""

from __future__ import annotations

import logging
import secrets
from typing import Any
from uuid import uuid4

from openenv.core.env_server.interfaces import Environment

from watercolour_env.models import WatercolourAction, WatercolourObservation, WatercolourState
from watercolour_env.services import EnvServices
from watercolour_shared.prompts import user_prompt
from watercolour_shared.render_wire import EPISODE_SETTINGS, EpisodeOptions, episode_refused

log = logging.getLogger(__name__)


class WatercolourEnvironment(Environment[WatercolourAction, WatercolourObservation, WatercolourState]):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, services: EnvServices):
        super().__init__()
        self.services = services
        self._options = EpisodeOptions()
        self._state = WatercolourState(episode_id=str(uuid4()), step_count=0, subject=self._options.subject)

    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> WatercolourObservation:
        return self._begin(seed, episode_id, kwargs)

    async def reset_async(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> WatercolourObservation:
        return self._begin(seed, episode_id, kwargs)

    def _begin(self, seed: int | None, episode_id: str | None, given: dict) -> WatercolourObservation:
        """Episode settings (subject, weights, references) come as keywords or inside `options`; keywords win.

        A bad setting raises the options' ValidationError before the episode changes: OpenEnv's WebSocket answers it
        as VALIDATION_ERROR and keeps the session, the app's handler answers HTTP /reset with 422. `options` is ours
        alone, so a key in it that is no setting is refused; other keywords may be OpenEnv's or a harness's own, so
        those are ignored, with a warning.
        """
        inside = given.pop("options", None) or {}
        if not isinstance(inside, dict):
            raise episode_refused("options", "options is an object of episode settings", type(inside).__name__)
        keywords = {k: v for k, v in given.items() if v is not None}
        ignored = set(keywords) - EPISODE_SETTINGS
        if ignored:
            log.warning("reset ignores keywords that are no episode setting: %s", sorted(ignored))
        options = EpisodeOptions.model_validate({**inside, **{k: v for k, v in keywords.items() if k not in ignored}})
        self.services.check_episode(options)
        resolved = options.weights_or(self.services.settings.default_weights())
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

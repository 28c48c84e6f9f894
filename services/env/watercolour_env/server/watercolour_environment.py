"""The OpenEnv environment: one episode is one painting, or a painting and its revisions.

`reset` picks the subject, seed and reward mix (per episode, no restart);
`step` gates, renders and rewards the policy's reply and ends the episode. With `revisions=N` (docs/revisions.md)
the first N steps answer `done=False` with a critique and no reward, and step N+1 ends it with the episode's reward.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import Any
from uuid import uuid4

from openenv.core.env_server.interfaces import Environment

from watercolour_env.critic import CriticFailed
from watercolour_env.critique import CRITIQUE_VERSION, critique
from watercolour_env.models import WatercolourAction, WatercolourObservation, WatercolourState
from watercolour_env.revisions import RevisionRubric, Turn
from watercolour_env.services import EnvServices
from watercolour_shared.prompts import user_prompt
from watercolour_shared.render_wire import (
    EPISODE_SETTINGS,
    MAX_SEED,
    EpisodeOptions,
    Evaluation,
    RenderResult,
    episode_refused,
    read_episode_options,
)

log = logging.getLogger(__name__)


class WatercolourEnvironment(Environment[WatercolourAction, WatercolourObservation, WatercolourState]):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, services: EnvServices):
        super().__init__(rubric=RevisionRubric())
        self.services = services
        self._lost: list[str] = []  # why each turn our infrastructure failed, in this episode
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
            log.warning("reset ignores keywords that are no episode setting: %s", ascii(sorted(ignored)))
        if seed is not None and not (isinstance(seed, int) and 0 <= seed <= MAX_SEED):
            raise episode_refused("seed", f"a seed is a whole number from 0 to {MAX_SEED}", None)
        options = read_episode_options({**inside, **{k: v for k, v in keywords.items() if k not in ignored}})
        self.services.check_episode(options)
        resolved = options.weights_or(self.services.settings.default_weights())
        self._options = options
        self._state = WatercolourState(
            episode_id=episode_id or str(uuid4()),
            step_count=0,
            subject=options.subject,
            seed=seed if seed is not None else secrets.randbelow(2**31),
            weights=resolved,
            revisions=options.revisions,
            revision_bonus=options.revision_bonus,
        )
        self.rubric.begin(options.revision_bonus)
        self._lost = []
        return WatercolourObservation(subject=options.subject, prompt=user_prompt(options.subject), status="ready")

    def step(self, action: WatercolourAction, timeout_s: float | None = None, **kwargs: Any) -> WatercolourObservation:
        raise RuntimeError("the watercolour environment renders asynchronously: call step_async")

    async def step_async(
        self, action: WatercolourAction, timeout_s: float | None = None, **kwargs: Any
    ) -> WatercolourObservation:
        if self._options.revisions:
            return await self._revision_turn(action)
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

    async def _revision_turn(self, action: WatercolourAction) -> WatercolourObservation:
        """One painting of an episode with revisions. Every turn paints with the episode's seed; the turns before the
        last carry the critique and no reward or breakdown, so the policy never reads a score mid-episode."""
        seed, turn = self._state.seed, self._state.step_count + 1
        if action.seed is not None and action.seed != seed:
            raise episode_refused("seed", f"every painting of an episode with revisions uses its seed, {seed}", action.seed)
        if turn > self._options.revisions + 1:
            raise episode_refused("revisions", "no revisions remain: reset to begin another episode", self._options.revisions)
        evaluation = await self.services.evaluate(action.reply, seed, self._options)
        self._state.step_count = turn
        render, reward = evaluation.render, evaluation.reward
        if reward.total is None:
            self._lost.append(f"painting {turn}: {render.unavailable_reason or reward.unavailable_reason}")
        left = self._options.revisions + 1 - turn
        episode_reward = self.rubric(action, Turn(total=reward.total, done=left == 0))
        observation = WatercolourObservation(
            subject=self._options.subject,
            prompt=user_prompt(self._options.subject),
            status=render.status,
            render=render if action.include_png else render.model_copy(update={"png_base64": None}),
            revisions_left=left,
            **await self._critique(render, read_before_painting=left > 0),
        )
        if left > 0:
            observation.unavailable_reason = render.unavailable_reason
            return observation
        return self._last_turn(observation, evaluation, episode_reward)

    async def _critique(self, render: RenderResult, read_before_painting: bool) -> dict:
        """The turn's critique: the rules', or the VLM critic's with the rules' beside it. When the critic gives none the
        rules' critique stands in, with the reason: a critique is no reward term, so its failure never touches a reward.
        The last turn's critique is read by no painter: the critic is not asked, and the episode's reward never waits on it."""
        measured = await asyncio.to_thread(critique, render)  # 10 to 20 ms of numpy: off the loop that answers every session
        rules = {"critique": measured, "critique_source": "rules", "critique_version": CRITIQUE_VERSION}
        critic = self.services.critic
        if critic is None or not read_before_painting:
            return rules
        try:
            said = await critic.critique(render, self._options.subject)
        except CriticFailed as failed:
            return {**rules, "measured_critique": measured, "critique_fallback_reason": failed.reason}
        return {"critique": said, "critique_source": "vlm", "critique_version": critic.version, "measured_critique": measured}

    def _last_turn(
        self, observation: WatercolourObservation, evaluation: Evaluation, episode_reward: float | None
    ) -> WatercolourObservation:
        """The episode's reward, the last painting's breakdown, and the first painting's reward when a bonus paid."""
        observation.done = True
        observation.reward = episode_reward
        observation.breakdown = evaluation.reward
        if self._options.revision_bonus > 0:
            observation.first_reward = self.rubric.first_total
        if episode_reward is None:
            observation.unavailable_reason = "; ".join(self._lost) or None
        return observation

    @property
    def state(self) -> WatercolourState:
        return self._state

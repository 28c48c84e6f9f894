"""Everything a server process holds once: settings, rules, the browser pool,
the cache, the pipeline and the reward assembler."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from watercolour_env.gate.rules import GateRules, load_rules
from watercolour_env.pipeline import RenderPipeline
from watercolour_env.render.renderer import Renderer
from watercolour_env.reward import RewardAssembler
from watercolour_env.settings import EnvSettings
from watercolour_env.terms import HpsTerm
from watercolour_shared.redis_cache import RedisCache
from watercolour_shared.render_wire import EpisodeOptions, Evaluation, RenderResult
from watercolour_shared.reward import resolve_weights
from watercolour_shared.scorer_client import ScorerClient

log = logging.getLogger(__name__)


@dataclass
class EnvServices:
    settings: EnvSettings
    rules: GateRules
    renderer: Renderer
    cache: RedisCache | None
    pipeline: RenderPipeline
    rewards: RewardAssembler
    report_terms: bool = True  # a server warns at start-up about weighted terms that cannot answer

    @classmethod
    def build(cls, settings: EnvSettings, use_cache: bool = True, report_terms: bool = True) -> EnvServices:
        rules = load_rules(settings.allowlist_path)
        renderer = Renderer(settings, rules)
        cache = RedisCache(settings.redis_url, settings.cache_ttl_s) if use_cache else None
        pipeline = RenderPipeline(renderer, cache, rules, settings.max_code_chars)
        return cls(settings, rules, renderer, cache, pipeline, RewardAssembler(_term_scorers(settings)), report_terms)

    async def start(self) -> None:
        await self.renderer.start()
        if self.cache and not await self.cache.ping():
            log.warning("Redis at %s is not reachable: rendering without a cache", self.settings.redis_url)
        if not self.report_terms:
            return
        weights = self.settings.default_weights()
        for term, reachable in (await self.rewards.reachable_terms()).items():
            if weights.active(term) and not reachable:
                log.warning(
                    "the %s term has weight %.2f but is not reachable: rewards will be null", term, getattr(weights, term)
                )

    async def close(self) -> None:
        await self.renderer.close()
        await self.rewards.close()
        if self.cache:
            await self.cache.close()

    async def evaluate(self, reply: str, seed: int, options: EpisodeOptions) -> Evaluation:
        """One rollout: render result and reward. Never raises for one bad reply."""
        try:
            result = await self.pipeline.run(reply, seed)
        except Exception as error:  # noqa: BLE001 - one broken render must not fail its group
            log.exception("render pipeline failed")
            result = RenderResult(status="unavailable", unavailable_reason=f"internal error: {error}")
        weights = resolve_weights(self.settings.default_weights(), options.mix, options.weights)
        reward = await self.rewards.assess(result, weights, options.subject, seed)
        return Evaluation(render=result, reward=reward)

    async def evaluate_group(self, replies: list[str], seed: int, options: EpisodeOptions) -> list[Evaluation]:
        """A GRPO group, fanned out over the pool; results keep the order of the replies."""
        return list(await asyncio.gather(*(self.evaluate(reply, seed, options) for reply in replies)))


def _term_scorers(settings: EnvSettings) -> dict:
    scorers = {}
    if settings.scorer_url:
        client = ScorerClient(settings.scorer_url, settings.scorer_token, timeout_s=settings.scorer_timeout_s)
        scorers["hps"] = HpsTerm(client, settings.hps_prompt)
    return scorers

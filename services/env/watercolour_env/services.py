"""Everything a server process holds once: settings, rules, the browser pool,
the cache, the pipeline and the reward assembler."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from watercolour_env.gate.rules import GateRules, load_rules
from watercolour_env.judge.chat_judge import ChatJudge
from watercolour_env.judge.offline import OfflineJudge
from watercolour_env.judge.pairwise import PairwiseJudge
from watercolour_env.judge.pool import ReferencePool
from watercolour_env.pipeline import RenderPipeline
from watercolour_env.render.renderer import Renderer
from watercolour_env.reward import RewardAssembler
from watercolour_env.settings import EnvSettings
from watercolour_env.terms import HpsTerm, JudgeTerm
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
        rewards = RewardAssembler(_term_scorers(settings, cache))
        return cls(settings, rules, renderer, cache, pipeline, rewards, report_terms)

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
        reward = await self.rewards.assess(result, weights, options, seed)
        return Evaluation(render=result, reward=reward)

    async def evaluate_group(self, replies: list[str], seed: int, options: EpisodeOptions) -> list[Evaluation]:
        """A GRPO group, fanned out over the pool; results keep the order of the replies."""
        return list(await asyncio.gather(*(self.evaluate(reply, seed, options) for reply in replies)))


def _term_scorers(settings: EnvSettings, cache: RedisCache | None) -> dict:
    scorers = {}
    if settings.scorer_url:
        client = ScorerClient(settings.scorer_url, settings.scorer_token, timeout_s=settings.scorer_timeout_s)
        scorers["hps"] = HpsTerm(client, settings.hps_prompt)
    judge = _judge(settings)
    if judge is not None:
        try:
            pool = _pool(settings)
            pool.sample(settings.judge_mix, settings.judge_references, seed=0)  # the mix must fit the pool
        except Exception as error:  # noqa: BLE001 - reported as a term that is not configured
            log.error("the reference pool could not be loaded, so the judge term is off: %s", error)
        else:
            pairwise = PairwiseJudge(judge, cache)
            scorers["judge"] = JudgeTerm(pairwise, pool, settings.judge_mix, settings.judge_references)
    return scorers


def _judge(settings: EnvSettings):
    if settings.judge == "offline":
        return OfflineJudge()
    if settings.judge == "router":
        if not settings.hf_token and "huggingface.co" in settings.judge_base_url:
            log.error("HF_TOKEN is not set, so the judge term (HF router) is off")
            return None
        return ChatJudge(settings.judge_base_url, settings.hf_token, settings.judge_model, settings.judge_max_concurrency)
    return None


def _pool(settings: EnvSettings) -> ReferencePool:
    if settings.pool_path:
        return ReferencePool.from_folder(settings.pool_path)
    return ReferencePool.from_hub(settings.pool_repo, settings.pool_revision)

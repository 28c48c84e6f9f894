"""Everything a server process holds once: settings, rules, the browser pool,
the cache, the pipeline and the reward assembler."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from watercolour_env.critic import CriticClient, VlmCritic
from watercolour_env.gate.rules import GateRules, load_rules
from watercolour_env.pipeline import RenderPipeline
from watercolour_env.reference_download import download_reference_pool
from watercolour_env.render.renderer import Renderer
from watercolour_env.reward_assembly import RewardAssembler
from watercolour_env.settings import EnvSettings
from watercolour_env.terms import HpsTerm, JudgeTerm
from watercolour_shared.judge.factory import NoJudge, make_judge
from watercolour_shared.judge.pairwise import PairwiseJudge
from watercolour_shared.readiness import Readiness, assess
from watercolour_shared.redis_cache import RedisCache
from watercolour_shared.reference_pool import ReferencePool, ReferencePoolError
from watercolour_shared.render_wire import EpisodeOptions, Evaluation, RenderResult, episode_refused
from watercolour_shared.scorer_client import ScorerClient

log = logging.getLogger(__name__)

NO_SCORER = "WATERCOLOUR_SCORER_URL is not set: point it at a running scorer (and WATERCOLOUR_SCORER_TOKEN for a private Space)"


@dataclass
class EnvServices:
    settings: EnvSettings
    rules: GateRules
    renderer: Renderer
    cache: RedisCache | None
    pipeline: RenderPipeline
    rewards: RewardAssembler
    reward_terms: bool = True  # False: a renderer alone, with no judge or scorer term (the CLI, the pool generator)
    how_to_configure: dict[str, str] = field(default_factory=dict)  # each term left out, and what would configure it
    pool: ReferencePool | None = None  # the judge's references; None without a judge
    critic: VlmCritic | None = None  # WATERCOLOUR_CRITIC=vlm: who writes the critiques; None: the rules alone

    @classmethod
    def build(cls, settings: EnvSettings, use_cache: bool = True, reward_terms: bool = True) -> EnvServices:
        rules = load_rules(settings.allowlist_path)
        renderer = Renderer(settings, rules)
        cache = RedisCache(settings.redis_url, settings.cache_ttl_s) if use_cache else None
        pipeline = RenderPipeline(renderer, cache, rules, settings.max_code_chars)
        scorers, how_to, pool = _term_scorers(settings, cache) if reward_terms else ({}, {}, None)
        critic = _critic(settings, cache) if reward_terms else None
        return cls(settings, rules, renderer, cache, pipeline, RewardAssembler(scorers), reward_terms, how_to, pool, critic)

    async def start(self) -> None:
        await self.renderer.start()
        if self.cache and not await self.cache.ping():
            log.warning("Redis at %s is not reachable: rendering without a cache", self.settings.redis_url)
        if not self.reward_terms:
            return
        # Said once at start-up, loudly only for a term the default weights use; /ready answers it on demand.
        readiness = await self.readiness()
        for reason in readiness.reasons:
            log.warning("%s: rewards that weigh it will be null", reason)
        for term, fix in readiness.how_to_configure.items():
            if not readiness.default_weights.active(term):
                log.info("the %s term is off (weight 0 by default): %s", term, fix)

    async def readiness(self) -> Readiness:
        """GET /ready: asks the judge endpoint and the scorer, so it is not for container health checks."""
        configured = self.rewards.configured_terms()
        reachable = await self.rewards.reachable_terms()
        details = self.rewards.described_terms()
        limits = self.settings.limits()
        return assess(self.settings.default_weights(), configured, reachable, self.how_to_configure, details, limits)

    async def close(self) -> None:
        await self.renderer.close()
        await self.rewards.close()
        if self.critic:
            await self.critic.close()
        if self.cache:
            await self.cache.close()

    def check_episode(self, options: EpisodeOptions) -> None:
        """Refuses, before any work, a reference count this environment's judge pool cannot draw with its tier mix,
        which would make every reward null; checked only where the episode weighs the judge, as the trainer's
        preflight asks. Raises the options' ValidationError. (A weighted term this environment has no scorer for
        stays an unavailable reward, as documented: eval and `--allow_missing_terms` rely on the renders.)"""
        if self.pool is None or options.references is None:
            return
        if not options.weights_or(self.settings.default_weights()).active("judge"):
            return
        try:
            self.pool.check(self.settings.judge_tier_mix, options.references)
        except ReferencePoolError as error:
            raise episode_refused("references", str(error), options.references) from None

    async def evaluate(self, reply: str, seed: int, options: EpisodeOptions) -> Evaluation:
        """One rollout: render result and reward. Never raises, so one rollout never changes another's answer."""
        weights = options.weights_or(self.settings.default_weights())
        try:
            result = await self.pipeline.run(reply, seed)
            return Evaluation(render=result, reward=await self.rewards.assess(result, weights, options, seed))
        except Exception as error:  # noqa: BLE001 - our own failure: this rollout is dropped, its group is not
            log.exception("evaluating a rollout failed")
            result = RenderResult(status="unavailable", unavailable_reason=f"internal error: {error}")
            return Evaluation(render=result, reward=await self.rewards.assess(result, weights, options, seed))

    async def evaluate_group(self, replies: list[str], seed: int, options: EpisodeOptions) -> list[Evaluation]:
        """A GRPO group, fanned out over the browser pool; results keep the order of the replies."""
        return list(await asyncio.gather(*(self.evaluate(reply, seed, options) for reply in replies)))


def _term_scorers(settings: EnvSettings, cache: RedisCache | None) -> tuple[dict, dict[str, str], ReferencePool | None]:
    """The model-scored terms that can be built, for each one that cannot what would configure it, and the judge's pool."""
    scorers, how_to, pool = {}, {"hps": NO_SCORER}, None
    if settings.scorer_url:
        client = ScorerClient(settings.scorer_url, settings.scorer_token, timeout_s=settings.scorer_timeout_s)
        scorers["hps"] = HpsTerm(client, settings.hps_prompt)
    judge, how_to["judge"] = _judge(settings)
    if judge is not None:
        try:
            pool = _reference_pool(settings)
            pool.sample(settings.judge_tier_mix, settings.judge_references, seed=0)  # the tier mix must fit the pool
        except Exception as error:  # noqa: BLE001 - reported as a term that is not configured
            how_to["judge"] = f"the reference pool could not be loaded ({error}): fix WATERCOLOUR_POOL_PATH or _POOL_REPO"
        else:
            scorers["judge"] = JudgeTerm(PairwiseJudge(judge, cache), pool, settings.judge_tier_mix, settings.judge_references)
    return scorers, {term: fix for term, fix in how_to.items() if term not in scorers}, pool if "judge" in scorers else None


def _judge(settings: EnvSettings):
    """The judge, or None and what would configure one."""
    if settings.judge == "off":
        return None, "WATERCOLOUR_JUDGE=off: set it to router (with HF_TOKEN) or offline"
    try:
        judge = make_judge(
            settings.judge, settings.judge_base_url, settings.hf_token, settings.judge_model, settings.judge_max_concurrency
        )
    except NoJudge as error:
        return None, f"{error}: set it, point WATERCOLOUR_JUDGE_BASE_URL at another endpoint, or set WATERCOLOUR_JUDGE=offline"
    return judge, ""


def _critic(settings: EnvSettings, cache: RedisCache | None) -> VlmCritic | None:
    """The VLM critic on the judge's endpoint, token and concurrency unless its own are set; None for the rules alone."""
    if settings.critic != "vlm":
        return None
    base_url, model = settings.critic_endpoint()
    client = CriticClient(base_url, settings.hf_token, model, settings.critic_timeout_s)
    return VlmCritic(client, cache, settings.critic_timeout_s, settings.judge_max_concurrency)


def _reference_pool(settings: EnvSettings) -> ReferencePool:
    if settings.pool_path:
        return ReferencePool.from_folder(settings.pool_path)
    return download_reference_pool(settings.pool_repo, settings.pool_revision)

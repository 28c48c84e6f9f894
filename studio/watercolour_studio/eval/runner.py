"""One evaluation, start to end: both policies paint every held-out subject, the environment gates,
renders and scores each painting, the judge compares A's and B's in both orders (matched or all pairs of a
subject's paintings), and eval.json and its page are written into the eval folder. With revisions each painting
is an episode (revisions.py): A's and B's last paintings meet, and each policy's last painting meets its own first."""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from tqdm import tqdm

from watercolour_shared.env_client import EnvHttpClient
from watercolour_shared.judge.pairwise import Judge
from watercolour_shared.redis_cache import RedisCache
from watercolour_shared.run_dir.evaluation import (
    DEFAULT_PAIRS,
    Evaluation,
    Match,
    Painting,
    Pairs,
    SubjectRow,
    SubjectSetInfo,
    write_evaluation,
)
from watercolour_shared.service_client import ServiceRejected, ServiceUnavailable
from watercolour_shared.subjects import SubjectSet
from watercolour_studio.eval.diversity import COLLAPSE_SHARE, distinct_share, spread
from watercolour_studio.eval.head_to_head import HeadToHead, pairings
from watercolour_studio.eval.page import write_page
from watercolour_studio.eval.policies import Policy, PolicyError
from watercolour_studio.eval.revisions import EpisodeSettings, EpisodesUnavailable, check_episodes
from watercolour_studio.eval.schedule import paint_all
from watercolour_studio.eval.summary import head_to_head, left_out, policy_summary, ratio, revision_gain

VERDICT_TTL_S = 30 * 24 * 3600


class EvalError(RuntimeError):
    """Something the whole evaluation needs is missing: said in one line before any work."""


@dataclass
class EvalPlan:
    policies: dict[str, Policy]  # "A" (the starting point) and "B" (the one measured against it)
    subjects: SubjectSet
    samples: int
    seed: int
    env_url: str
    judge: Judge
    out: Path
    token: str | None = None
    show_progress: bool = True
    held_out: bool = True  # False when a policy is a run's own paintings: their subjects are the ones it trained on
    pairs: Pairs = DEFAULT_PAIRS
    revisions: int = 0  # paintings after the first in each episode, each after the environment's critique

    @property
    def episodes(self) -> EpisodeSettings | None:
        return EpisodeSettings(self.revisions, self.env_url, self.token) if self.revisions else None


async def evaluate(plan: EvalPlan) -> Evaluation:
    plan.out.mkdir(parents=True, exist_ok=True)
    cache = RedisCache(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"), VERDICT_TTL_S)
    async with EnvHttpClient(plan.env_url, plan.token) as env:
        await _preflight(env, plan)
        total = len(plan.policies) * len(plan.subjects.subjects) * plan.samples * (plan.revisions + 1)
        with tqdm(total=total, desc="paintings", unit="painting", disable=not plan.show_progress) as bar:
            paint = (env, plan.policies, plan.subjects.subjects, plan.samples, plan.seed, plan.out, bar.update)
            paintings, seconds, turns = await paint_all(*paint, plan.episodes)
    started = time.perf_counter()
    judge = HeadToHead(plan.judge, cache if cache.available else None, plan.out)
    rows = []
    for index, subject in enumerate(tqdm(plan.subjects.subjects, desc="judging", disable=not plan.show_progress)):
        a, b = paintings["A"][index], paintings["B"][index]
        matches = [await judge.match(pa, pb) for pa, pb in pairings(a, b, plan.pairs)]
        rows.append(_row(subject, a, b, matches, plan.out))
        if plan.revisions:
            rows[-1].turns = {label: chains[index] for label, chains in turns.items()}
            rows[-1].gain = {label: await _gain(judge, chains[index], paintings[label][index]) for label, chains in turns.items()}
    seconds["judge and diversity"] = round(time.perf_counter() - started, 1)
    await cache.close()
    for policy in plan.policies.values():
        await policy.close()
    evaluation = _evaluation(plan, rows)
    evaluation.seconds = seconds
    write_evaluation(plan.out, evaluation)
    write_page(plan.out, evaluation)
    return evaluation


async def _gain(judge: HeadToHead, chains: list[list], last: list[Painting]) -> list[Match]:
    """Each episode's last painting (as B) against its own first (as A); an episode with no first painting (the
    policy gave no first reply) is left out, as its last painting is."""
    firsts = [chain[0] if chain else painting for chain, painting in zip(chains, last, strict=True)]
    return [await judge.match(first, final) for first, final in zip(firsts, last, strict=True)]


async def _preflight(env: EnvHttpClient, plan: EvalPlan) -> None:
    try:
        await env.readiness()
    except (ServiceUnavailable, ServiceRejected) as error:
        raise EvalError(f"the environment at {plan.env_url} does not answer: {error}") from None
    if plan.episodes:
        try:
            await check_episodes(plan.episodes)
        except EpisodesUnavailable as error:
            raise EvalError(str(error)) from None
    for label, policy in plan.policies.items():
        try:
            await policy.check()
        except PolicyError as error:
            raise EvalError(f"policy {label}: {error}") from None


def _row(subject: str, a: list, b: list, matches: list, out: Path) -> SubjectRow:
    diversity, distinct = {}, {}
    for label, paintings in (("A", a), ("B", b)):
        diversity[label] = spread([(out / p.png).read_bytes() for p in paintings if p.status == "passed" and p.png])
        distinct[label] = distinct_share([p.brush_calls for p in paintings if p.status != "unavailable"])
    return SubjectRow(subject=subject, a=a, b=b, matches=matches, diversity=diversity, distinct_code=distinct)


def _evaluation(plan: EvalPlan, rows: list[SubjectRow]) -> Evaluation:
    js_chars = {p.js: len((plan.out / p.js).read_text(encoding="utf-8")) for row in rows for p in row.a + row.b if p.js}
    summaries = {label: policy_summary(label, policy.source, rows, js_chars) for label, policy in plan.policies.items()}
    diversity_ratio = ratio(summaries["B"].diversity, summaries["A"].diversity)
    training_judge = plan.policies["B"].training_judge
    same_judge = None if training_judge is None else training_judge == plan.judge.name
    warnings = []
    if not plan.held_out:
        warnings.append("the subjects are the ones the run painted in training: this eval is not held out")
    if same_judge:
        warnings.append(f"B was trained by {plan.judge.name}, the judge of this head-to-head: pass --judge a held-out one")
    if diversity_ratio is not None and diversity_ratio < COLLAPSE_SHARE:
        warnings.append(f"B's paintings vary {diversity_ratio:.0%} as much as A's (below {COLLAPSE_SHARE:.0%}): collapse")
    for label, summary in summaries.items():
        if summary.unavailable:
            reasons = "; ".join(f"{why} ({count})" for why, count in left_out(rows, label).items())
            total = summary.unavailable + summary.paintings
            warnings.append(f"{label}: {summary.unavailable} of {total} paintings left out, never scored: {reasons}")
    matches = head_to_head(rows)
    if matches.left_out:
        warnings.append(f"{matches.left_out} comparisons left out: something gave no answer (not counted as losses)")
    gains = {label: revision_gain(rows, label) for label in plan.policies} if plan.revisions else {}
    return Evaluation(
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        subjects=subject_info(plan.subjects),
        samples=plan.samples,
        seed=plan.seed,
        pairs=plan.pairs,
        judge=plan.judge.name,
        training_judge=training_judge,
        same_judge=same_judge,
        policies=summaries,
        head_to_head=matches,
        diversity_ratio=diversity_ratio,
        warnings=warnings,
        rows=rows,
        revisions=plan.revisions,
        revision_gain=gains,
    )


def subject_info(subjects: SubjectSet) -> SubjectSetInfo:
    """How eval.json names a subject set."""
    return SubjectSetInfo(name=subjects.name, sha256=subjects.sha256, count=len(subjects.subjects))


def run(plan: EvalPlan) -> Evaluation:
    return asyncio.run(evaluate(plan))

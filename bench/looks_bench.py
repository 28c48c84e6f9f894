"""Looks benchmark: what each of the demo's eight looks earns in reward, and how its paintings fare against
the others with the judge of the demo's closing evaluation. Prints one JSON document and writes it under
bench/results/.

Every look paints the same sketches: the warm start's corpus (its six subjects in turn, `--samples` scenes
each) with only the look's lines changed. They go through the demo's local stack (Redis, the heuristic
scorer, the environment with the offline judge on the bundled pool) and eval's own code: `render_subject`
for the paintings and their terms, `HeadToHead` for the verdicts in both orders. For each look: its mean
reward with the demo's weights and its terms, and its win rate against the corpus's even mix of all eight
(every pair of one scene, ties counted half): the warm start imitates that mix.

Then, for each KL penalty beta, the policy GRPO tends to: the even mix with each look weighted by
exp(reward / beta). Its share of each quality's levels and its expected win rate are what the closing
evaluation can show at best if training reaches that policy and none of its sketches breaks.

    python bench/looks_bench.py [--samples N]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import math
import tempfile
from pathlib import Path

from watercolour_demo.warm_start import WarmStartConfig
from watercolour_harness import record
from watercolour_harness.sketchgen.looks import EVERY_LOOK, QUALITIES, Look
from watercolour_harness.stack import LocalStack
from watercolour_shared.env_client import EnvHttpClient
from watercolour_shared.judge.offline import OfflineJudge
from watercolour_shared.reward import DEFAULT_MIX, TermScores, mix_reward, preset
from watercolour_shared.run_dir.evaluation import Painting
from watercolour_studio.eval.head_to_head import SCORES, HeadToHead
from watercolour_studio.eval.paintings import render_subject

BENCH_DIR = Path(__file__).resolve().parent
SEED = 101  # the corpus's scenes: any seed; the warm start trained on seeds from 0
BETAS = (0.2, 0.1, 0.05)


def label(look: Look) -> str:
    return f"zoom-{look.zoom:g}-wash-{look.wash:g}-glaze-{look.glaze:g}"


async def paint(stack: LocalStack, samples: int, out: Path) -> dict[Look, list[list[Painting]]]:
    """Each look's paintings, by subject and sample; a subject for each browser at once."""
    config = WarmStartConfig()
    sketches = config.generator()
    env, gate = EnvHttpClient(stack.env_url), asyncio.Semaphore(stack.browsers)

    async def one_subject(look: Look, index: int, subject: str, replies: list[str]) -> list[Painting]:
        async with gate:
            return await render_subject(env, replies, subject, index, SEED, out, label(look))

    jobs = {}
    for look in EVERY_LOOK:
        replies = [reply for _, reply in sketches.replies(len(config.subjects) * samples, SEED, look=look)]
        for index, subject in enumerate(config.subjects):
            jobs[(look, index)] = one_subject(look, index, subject, replies[index :: len(config.subjects)])
    try:
        done = dict(zip(jobs, await asyncio.gather(*jobs.values()), strict=True))
    finally:
        await env.close()
    return {look: [done[(look, index)] for index in range(len(config.subjects))] for look in EVERY_LOOK}


def reward(painting: Painting) -> float | None:
    terms = TermScores(judge=painting.reward.get("judge"), hps=painting.reward.get("hps"))
    return mix_reward(painting.status == "passed", painting.reward.get("length") or 0.0, terms, preset(DEFAULT_MIX)).total


async def win_rates(paintings: dict[Look, list[list[Painting]]], out: Path) -> dict[Look, float]:
    """Each look (as B) against every look (as A) on the same scene, ties half; left-out pairs are not counted."""
    head = HeadToHead(OfflineJudge(), None, out)
    scores: dict[Look, list[float]] = {look: [] for look in EVERY_LOOK}
    for b, a in itertools.product(EVERY_LOOK, repeat=2):
        for row_a, row_b in zip(paintings[a], paintings[b], strict=True):
            for painting_a, painting_b in zip(row_a, row_b, strict=True):
                match = await head.match(painting_a, painting_b)
                if match.outcome in SCORES:
                    scores[b].append(SCORES[match.outcome])
    return {look: sum(found) / len(found) for look, found in scores.items()}


def mean(values: list[float | None]) -> float | None:
    known = [value for value in values if value is not None]
    return sum(known) / len(known) if known else None


def tuned_policy(rewards: dict[Look, float], wins: dict[Look, float], beta: float) -> dict:
    """The even mix reweighted by exp(reward / beta): its share of each quality's higher level, and its win rate."""
    top = max(rewards.values())
    weights = {look: math.exp((rewards[look] - top) / beta) for look in EVERY_LOOK}
    total = sum(weights.values())
    shares = {look: weight / total for look, weight in weights.items()}
    higher = {quality: max(getattr(look, quality) for look in EVERY_LOOK) for quality in QUALITIES}
    at_higher = {q: sum(s for look, s in shares.items() if getattr(look, q) == higher[q]) for q in QUALITIES}
    return {
        "beta": beta,
        "share_of_higher_level": {f"{quality} {higher[quality]:g}": round(at_higher[quality], 3) for quality in QUALITIES},
        "expected_win_rate": round(sum(shares[look] * wins[look] for look in EVERY_LOOK), 3),
    }


async def measure(samples: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="looks-bench-") as scratch, LocalStack(Path(scratch) / "logs") as stack:
        out = Path(scratch)
        paintings = await paint(stack, samples, out)
        wins = await win_rates(paintings, out)
    every = {look: [p for row in paintings[look] for p in row] for look in EVERY_LOOK}
    rewards = {look: mean([reward(p) for p in every[look]]) for look in EVERY_LOOK}
    looks = [
        {
            "look": {quality: getattr(look, quality) for quality in QUALITIES},
            "paintings": len(every[look]),
            "passed": sum(p.status == "passed" for p in every[look]),
            "reward": round(rewards[look], 3),
            "terms": {term: round(mean([p.reward.get(term) for p in every[look]]), 3) for term in ("length", "judge", "hps")},
            "win_rate_against_even_mix": round(wins[look], 3),
        }
        for look in EVERY_LOOK
    ]
    return {
        **record.header("looks"),
        "weights": preset(DEFAULT_MIX).model_dump(),
        "judge": OfflineJudge.name,
        "scenes": {"subjects": list(WarmStartConfig().subjects), "samples": samples, "seed": SEED},
        "looks": looks,
        "tuned_policy": [tuned_policy(rewards, wins, beta) for beta in BETAS],
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=3, help="scenes of each subject in every look")
    record.write(asyncio.run(measure(parser.parse_args().samples)))

"""A run directory written as the trainer writes it (docs/run-directory.md), from real
evaluations by a real environment: whole files renamed into place, one metrics line per step."""

from __future__ import annotations

import base64
import json
import os
import statistics
from collections import Counter
from pathlib import Path

from tests.conftest import sketch
from watercolour_shared.env_client import EnvClient
from watercolour_shared.prompts import user_prompt
from watercolour_shared.render_wire import EpisodeOptions, Evaluation

SUBJECT = "a peach hibiscus"
GOOD = [sketch(name) for name in ("peach-hibiscus-a.js", "peach-hibiscus-b.js", "peach-bloom-small.js", "two-washes.js")]
REFUSAL = "I'm sorry, I can't paint that."
BARE_PRIMITIVE = sketch("two-washes.js").replace("brush.circle(300, 300, 90, 0.3);", "ellipse(300, 300, 90, 90);")


def write_whole(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_bytes(data)
    os.replace(partial, path)


def write_plan(run_dir: Path, **extra) -> None:
    plan = {
        "model": "Qwen/Qwen2.5-Coder-7B-Instruct",
        "subject": SUBJECT,
        "mix": "judge-led",
        "started_at": "2026-11-30T12:00:00Z",
    }
    write_whole(run_dir / "run.json", json.dumps({**plan, **extra}).encode())


async def write_step(env_url: str, run_dir: Path, step: int, groups: list[list[str]]) -> list[dict]:
    """Each group is evaluated together with its own seed, as the trainer does; returns the rollout records."""
    records = []
    async with EnvClient(env_url) as client:
        for group, replies in enumerate(groups):
            seed = 1000 * step + group
            evaluations = await client.evaluate(replies, seed=seed, options=EpisodeOptions(subject=SUBJECT), include_png=True)
            for reply, evaluation in zip(replies, evaluations, strict=True):
                records.append(write_rollout(run_dir, step, len(records), group, seed, reply, evaluation))
    append_metrics(run_dir, step, records)
    return records


def write_rollout(run_dir: Path, step: int, index: int, group: int, seed: int, reply: str, evaluation: Evaluation) -> dict:
    folder = run_dir / "film" / f"step-{step:06d}"
    png = evaluation.render.png_base64
    evaluation.render.png_base64 = None
    record = {
        "step": step,
        "index": index,
        "group": group,
        "prompt": user_prompt(SUBJECT),
        "seed": seed,
        "reward": evaluation.reward.total,
        "dropped_reason": evaluation.reward.unavailable_reason if evaluation.reward.total is None else None,
        "evaluation": evaluation.model_dump(mode="json"),
    }
    write_whole(folder / f"rollout-{index:02d}.js", (evaluation.render.code or reply).encode())
    if png:
        write_whole(folder / f"rollout-{index:02d}.png", base64.b64decode(png))
    write_whole(folder / f"rollout-{index:02d}.json", json.dumps(record).encode())
    return record


def metrics_line(step: int, records: list[dict]) -> dict:
    kept = [r for r in records if r["reward"] is not None]
    rewards = [r["reward"] for r in kept]
    breakdowns = [r["evaluation"]["reward"] for r in kept]
    terms = [t for t in ("gate", "length", "judge", "hps") if breakdowns and breakdowns[0]["weights"][t] > 0]
    groups = {r["group"] for r in records}
    equal = sum(len({r["reward"] for r in kept if r["group"] == g}) == 1 for g in groups)
    painted = [r for r in kept if r["evaluation"]["render"]["status"] == "passed"]
    best = max(painted, key=lambda r: r["reward"], default=None)
    return {
        "step": step,
        "time": "2026-11-30T12:00:00Z",
        "rollouts": len(records),
        "dropped": len(records) - len(kept),
        "reward_mean": statistics.fmean(rewards) if rewards else None,
        "reward_std": statistics.pstdev(rewards) if rewards else None,
        "components": {t: statistics.fmean(b[t] or 0.0 for b in breakdowns) for t in terms},
        "gate_pass_rate": sum(b["gate"] for b in breakdowns) / len(breakdowns) if breakdowns else 0.0,
        "violations": Counter(v["code"] for r in records for v in r["evaluation"]["render"]["violations"]),
        "below_0_3": sum(reward < 0.3 for reward in rewards),
        "all_equal_groups": equal,
        "groups": len(groups),
        "timings": {"generation_s": 1.0, "render_s": 1.0, "scoring_s": 1.0, "training_s": 1.0},
        "best": f"film/step-{step:06d}/rollout-{best['index']:02d}.png" if best else None,
    }


def append_metrics(run_dir: Path, step: int, records: list[dict]) -> None:
    """The whole file is rewritten with the new line, so a reader never sees half a line."""
    path = run_dir / "metrics.jsonl"
    before = path.read_bytes() if path.exists() else b""
    write_whole(path, before + json.dumps(metrics_line(step, records)).encode() + b"\n")


def step_groups(good: int, size: int = 4) -> list[list[str]]:
    """Two groups of `size`: `good` real sketches each, the rest failing the gate."""
    failing = [REFUSAL, BARE_PRIMITIVE] * size
    return [(GOOD[g:] + GOOD[:g])[:good] + failing[: size - good] for g in (0, 1)]

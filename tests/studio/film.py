"""A run directory written as the trainer writes it, through the trainer's own writer
(watercolour_shared.run_dir), from real evaluations by a real environment."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import sketch
from watercolour_shared.env_client import EnvHttpClient
from watercolour_shared.prompts import user_prompt
from watercolour_shared.render_wire import EpisodeOptions
from watercolour_shared.reward import preset
from watercolour_shared.run_dir import RolloutRecord, RunWriter, StepTimings, summarise

SUBJECT = "a peach hibiscus"
GOOD = [sketch(name) for name in ("peach-hibiscus-a.js", "peach-hibiscus-b.js", "peach-bloom-small.js", "two-washes.js")]
REFUSAL = "I'm sorry, I can't paint that."
BARE_PRIMITIVE = sketch("two-washes.js").replace("brush.circle(300, 300, 90, 0.3);", "ellipse(300, 300, 90, 90);")
TIMINGS = StepTimings(generation_s=1.0, render_s=1.0, scoring_s=1.0, training_s=1.0)


def write_plan(run_dir: Path, **extra) -> None:
    plan = {
        "model": "Qwen/Qwen2.5-Coder-7B-Instruct",
        "subjects": [SUBJECT],
        "weights": preset("judge-led"),
        "mix": "judge-led",
        "lora": {"targets": "all-linear", "r": 16, "alpha": 32},
        "push_to": None,
    }
    RunWriter(run_dir).write_plan({**plan, **extra})


async def write_step(env_url: str, run_dir: Path, step: int, groups: list[list[str]]) -> list[RolloutRecord]:
    """Each group is evaluated together with its own seed, as the trainer does; returns the rollout records."""
    run, records = RunWriter(run_dir), []
    async with EnvHttpClient(env_url) as client:
        for group, replies in enumerate(groups):
            seed = 1000 * step + group
            evaluations = await client.evaluate(replies, seed=seed, options=EpisodeOptions(subject=SUBJECT), include_png=True)
            for reply, evaluation in zip(replies, evaluations, strict=True):
                record = RolloutRecord.answered(
                    evaluation, step=step, index=len(records), group=group, prompt=user_prompt(SUBJECT), seed=seed, reply=reply
                )
                run.record(record)
                records.append(record)
    run.append_metrics(summarise(step, records, TIMINGS, "2026-11-30T12:00:00+00:00"))
    return records


def step_groups(good: int, size: int = 4) -> list[list[str]]:
    """Two groups of `size`: `good` real sketches each, the rest failing the gate."""
    failing = [REFUSAL, BARE_PRIMITIVE] * size
    return [(GOOD[g:] + GOOD[:g])[:good] + failing[: size - good] for g in (0, 1)]

"""Paintings of one subject, kept only when they pass the gate, written into a folder `pool rate`
grades. Resumable: every attempt is logged once it ends, and a rerun starts after the last one,
stopping once the folder holds `count` paintings of the subject (or `max_attempts` were made)."""

from __future__ import annotations

import asyncio
import base64
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from watercolour_shared.env_client import EnvHttpClient
from watercolour_shared.render_wire import RenderResult
from watercolour_studio.durable import append_line, read_lines, write_whole
from watercolour_studio.pool.painter import PaintingModel

NUMBERED = re.compile(r"gen-(\d+)\.png$")


class EnvironmentUnavailable(RuntimeError):
    """The renderer could not judge a painting: never the model's fault, so the attempt is not spent."""


@dataclass(frozen=True)
class Job:
    folder: Path
    subject: str
    count: int
    max_attempts: int
    seed: int = 0
    concurrency: int = 4


async def generate(job: Job, painter: PaintingModel, env: EnvHttpClient, report: Callable[[str], None]) -> int:
    """Returns how many paintings of the subject the folder holds."""
    kept = _kept(job)
    attempt = _next_attempt(job.folder)
    while kept < job.count and attempt < job.max_attempts:
        batch = range(attempt, min(attempt + job.concurrency, attempt + job.count - kept, job.max_attempts))
        outcomes = await asyncio.gather(*(_attempt(job, painter, env, number) for number in batch))
        for number, (painted, outcome) in zip(batch, outcomes, strict=True):
            report(f"attempt {number}: {outcome}")
            kept += painted
        attempt = batch.stop
    return kept


def _kept(job: Job) -> int:
    return sum(row.get("subject") == job.subject for row in read_lines(job.folder / "metadata.jsonl"))


def _next_attempt(folder: Path) -> int:
    """After every attempt logged and every painting kept (a crash may fall between the two writes)."""
    logged = [row["attempt"] for row in read_lines(folder / "attempts.jsonl")]
    kept = [int(match.group(1)) for row in read_lines(folder / "metadata.jsonl") if (match := NUMBERED.search(row["file_name"]))]
    return max([-1, *logged, *kept]) + 1


async def _attempt(job: Job, painter: PaintingModel, env: EnvHttpClient, number: int) -> tuple[bool, str]:
    """Whether a painting was kept, and what happened, in words."""
    seed = job.seed + number
    reply = await painter.paint(job.subject, seed)
    result = await env.render(reply, seed=seed, include_png=True)
    if result.status == "unavailable":
        raise EnvironmentUnavailable(result.unavailable_reason or "the environment could not render")
    outcome = _keep(job, painter.model, number, seed, result) if result.passed else "failed the gate: " + _codes(result)
    append_line(job.folder / "attempts.jsonl", {"attempt": number, "seed": seed, "subject": job.subject, "outcome": outcome})
    return result.passed, outcome


def _keep(job: Job, model: str, number: int, seed: int, result: RenderResult) -> str:
    name = f"gen-{number:05d}"
    write_whole(job.folder / "images" / f"{name}.png", base64.b64decode(result.png_base64 or ""))
    write_whole(job.folder / "sources" / f"{name}.js", (result.code or "").encode())
    row = {
        "file_name": f"images/{name}.png",
        "subject": job.subject,
        "generator": model,
        "source": f"sources/{name}.js",
        "seed": seed,
        "paint_coverage": round(result.paint_fraction or 0.0, 4),
    }
    append_line(job.folder / "metadata.jsonl", row)
    return f"kept {row['file_name']} (paint {row['paint_coverage']:.1%})"


def _codes(result: RenderResult) -> str:
    return ", ".join(v.code.value for v in result.violations) or "no painting"

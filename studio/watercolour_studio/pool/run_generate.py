"""`watercolour pool generate`: the loop with its model and renderer, and a clear exit on failure."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from watercolour_shared.env_client import EnvHttpClient, EnvRejected, EnvUnavailable
from watercolour_studio.pool.generate import EnvironmentUnavailable, Job, generate
from watercolour_studio.pool.painter import PainterRejected, PainterUnavailable, PaintingModel

STOPPED = (PainterUnavailable, PainterRejected, EnvUnavailable, EnvRejected, EnvironmentUnavailable)


def run_generate(args: argparse.Namespace) -> int:
    job = Job(args.folder, args.subject, args.count, args.max_attempts, args.seed, args.concurrency)
    args.folder.mkdir(parents=True, exist_ok=True)
    try:
        kept = asyncio.run(_run(job, args))
    except STOPPED as error:
        print(f"watercolour: stopped: {error}; rerun the same command to resume", file=sys.stderr)
        return 2
    print(f"{kept} paintings of {job.subject} in {job.folder}" + ("" if kept >= job.count else f" (asked for {job.count})"))
    return 0 if kept >= job.count else 1


async def _run(job: Job, args: argparse.Namespace) -> int:
    painter = PaintingModel(args.model, args.base_url, os.environ.get(args.token_env), args.temperature)
    async with painter, EnvHttpClient(args.env_url) as env:
        return await generate(job, painter, env, lambda line: print(line, flush=True))

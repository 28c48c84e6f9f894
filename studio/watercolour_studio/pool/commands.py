"""`watercolour pool generate|rate|pack|calibrate`: the reference-pool workbench."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

from watercolour_shared.judge.defaults import HF_ROUTER_URL
from watercolour_shared.sampling import Sampling
from watercolour_studio.exit_codes import EXIT_ERROR, EXIT_OK
from watercolour_studio.judges import add_judge_arguments, judge_from


def add_pool_commands(commands) -> None:
    pool = commands.add_parser("pool", help="make a graded reference pool: generate, rate, pack, calibrate")
    actions = pool.add_subparsers(dest="pool_command", required=True)
    _generate_parser(
        actions.add_parser("generate", help="paintings of a subject from a chat model, kept when they pass the gate")
    )
    rate = actions.add_parser("rate", help="grade paintings in the browser: 1 love, 2 okay, 3 meh, 4 nope")
    rate.add_argument("folder", type=Path, help="a folder with metadata.jsonl and images (from `pool generate`, or a pool)")
    rate.add_argument("--host", default="127.0.0.1")
    rate.add_argument("--port", type=int, default=8766, help="0 picks a free port")
    rate.set_defaults(run=_rate)
    _pack_parser(actions.add_parser("pack", help="the graded paintings as a pool the judge loads, optionally pushed to the Hub"))
    _calibrate_parser(actions.add_parser("calibrate", help="the judge's win rate of policy paintings against each reference"))


def _generate_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", type=Path, help="where the paintings go; rerun with the same folder to resume")
    parser.add_argument("--subject", required=True, help='e.g. "a blue iris"')
    parser.add_argument("--model", required=True, help="the chat model's name at the endpoint")
    parser.add_argument("--count", type=int, default=20, help="stop once the folder holds this many paintings of the subject")
    parser.add_argument("--max-attempts", type=int, default=200, help="stop after this many attempts in all")
    parser.add_argument(
        "--base-url", default=HF_ROUTER_URL, help="an OpenAI-compatible endpoint (token: HF_TOKEN or --token-env)"
    )
    parser.add_argument("--token-env", default="HF_TOKEN", help="the environment variable holding the endpoint's token")
    parser.add_argument("--temperature", type=float, default=Sampling().temperature)
    parser.add_argument("--seed", type=int, default=0, help="attempt N uses seed + N, for the model and the render")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument(
        "--env-url", required=True, help="a running environment (`watercolour serve`, a container, a Space) gates and renders"
    )
    parser.set_defaults(run=_generate)


def _pack_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folders", type=Path, nargs="+", help="graded folders (from `pool rate`)")
    parser.add_argument("--out", type=Path, required=True, help="a new folder for the pool")
    parser.add_argument("--push", metavar="REPO", help="also upload the pool as this Hub dataset (token: HF_TOKEN)")
    parser.add_argument("--private", action="store_true", help="with --push: a private dataset")
    parser.set_defaults(run=_pack)


def _calibrate_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pool", type=Path, required=True, help="the pool folder to calibrate")
    parser.add_argument("--paintings", type=Path, required=True, help="a run directory (its last steps) or a folder of PNGs")
    parser.add_argument("--last-steps", type=int, default=5, help="with a run directory: how many of its last steps")
    add_judge_arguments(parser)
    parser.add_argument("--too-hard", type=float, default=0.1, help="a win rate at or below this marks a reference too hard")
    parser.add_argument("--too-easy", type=float, default=0.9, help="a win rate at or above this marks a reference too easy")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(run=_calibrate)


def _generate(args: argparse.Namespace) -> int:
    from watercolour_studio.pool.run_generate import run_generate

    return run_generate(args)


def _rate(args: argparse.Namespace) -> int:
    from watercolour_studio.pool.collection import Collection
    from watercolour_studio.pool.rate_app import rate_app
    from watercolour_studio.serve import serve

    collection = Collection(args.folder)
    if not collection.rows():
        print(f"watercolour: {args.folder} has no paintings (metadata.jsonl)", file=sys.stderr)
        return EXIT_ERROR
    return serve(rate_app(collection), args.host, args.port, f"grading {args.folder}")


def _pack(args: argparse.Namespace) -> int:
    from watercolour_studio.pool.pack import PackError, pack, push

    try:
        pool = pack(args.folders, args.out)
    except PackError as error:
        print(f"watercolour: {error}", file=sys.stderr)
        return EXIT_ERROR
    tiers = ", ".join(f"{count} {tier}" for tier, count in pool.tiers().items() if count)
    print(f"packed {len(pool.entries)} paintings ({tiers}) into {args.out}")
    if args.push:
        commit = push(args.out, args.push, os.environ.get("HF_TOKEN"), args.private)
        print(f"pushed to the Hub dataset {args.push} at {commit}: pin it with WATERCOLOUR_POOL_REVISION={commit}")
    return EXIT_OK


def _calibrate(args: argparse.Namespace) -> int:
    from watercolour_shared.reference_pool import ReferencePool
    from watercolour_studio.pool.calibrate import calibrate, policy_paintings

    paintings = [path.read_bytes() for path in policy_paintings(args.paintings, args.last_steps)]
    if not paintings:
        print(f"watercolour: no paintings under {args.paintings}", file=sys.stderr)
        return EXIT_ERROR
    rows = asyncio.run(calibrate(ReferencePool.from_folder(args.pool), paintings, judge_from(args), args.too_hard, args.too_easy))
    if args.json:
        print(json.dumps([row.as_json() for row in rows], indent=2))
        return EXIT_OK
    print(f"{len(paintings)} policy paintings against {len(rows)} references, hardest first")
    for row in rows:
        rate = "-" if row.win_rate is None else f"{row.win_rate:.2f}"
        print(f"  {row.reference:24} {row.tier:5} win rate {rate:>5}  ({row.judged} judged)  {row.verdict}")
    return EXIT_OK

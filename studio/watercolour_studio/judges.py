"""The judge a studio command compares paintings with: the chat VLM (the HF router or any OpenAI-compatible
endpoint) or the offline stand-in. `pool calibrate` and `eval` take the same three options, and the judge is made
by the environment's own factory (watercolour_shared.judge.factory): the same choices, the same checks."""

from __future__ import annotations

import argparse
import os
import sys

from watercolour_shared.judge.defaults import DEFAULT_MODEL, HF_ROUTER_URL
from watercolour_shared.judge.factory import JUDGES, NoJudge, make_judge
from watercolour_studio.exit_codes import EXIT_ERROR


def add_judge_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--judge", choices=JUDGES, default="router", help="a chat VLM, or the offline stand-in")
    parser.add_argument("--judge-base-url", default=HF_ROUTER_URL, help="any OpenAI-compatible endpoint")
    parser.add_argument("--judge-model", default=DEFAULT_MODEL)


def judge_from(args: argparse.Namespace):
    """The judge the options name; a judge that cannot be made (the HF router without HF_TOKEN) stops the command
    with exit code 2 before any work, not at its first comparison."""
    try:
        return make_judge(args.judge, args.judge_base_url, os.environ.get("HF_TOKEN"), args.judge_model)
    except NoJudge as error:
        print(f"watercolour: {error}: set it, pass --judge-base-url for another endpoint, or --judge offline", file=sys.stderr)
        raise SystemExit(EXIT_ERROR) from None

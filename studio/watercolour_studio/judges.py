"""The judge a studio command compares paintings with: the chat VLM (the HF router or any OpenAI-compatible
endpoint) or the offline stand-in. `pool calibrate` and `eval` take the same three options."""

from __future__ import annotations

import argparse
import os

from watercolour_shared.judge.defaults import DEFAULT_MODEL, HF_ROUTER_URL


def add_judge_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--judge", choices=("router", "offline"), default="router", help="a chat VLM, or the offline stand-in")
    parser.add_argument("--judge-base-url", default=HF_ROUTER_URL, help="any OpenAI-compatible endpoint")
    parser.add_argument("--judge-model", default=DEFAULT_MODEL)


def judge_from(args: argparse.Namespace):
    from watercolour_shared.judge.chat_judge import ChatJudge
    from watercolour_shared.judge.offline import OfflineJudge

    if args.judge == "offline":
        return OfflineJudge()
    return ChatJudge(args.judge_base_url, os.environ.get("HF_TOKEN"), args.judge_model)

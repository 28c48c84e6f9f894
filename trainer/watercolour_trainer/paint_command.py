"""`watercolour paint`: a trained policy (base + adapter) paints N pictures through an environment."""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
from pathlib import Path

import torch

from watercolour_shared.env_client import EnvClient
from watercolour_shared.prompts import chat_messages
from watercolour_shared.render_wire import EpisodeOptions
from watercolour_trainer.model_loading import load_policy, load_tokenizer, load_with_adapter


def write_replies(args: argparse.Namespace) -> list[str]:
    model = load_with_adapter(args.model, args.adapter, args.bf16) if args.adapter else load_policy(args.model, args.bf16)
    tokenizer = load_tokenizer(args.adapter or args.model)
    prompt = tokenizer.apply_chat_template(
        chat_messages(args.subject), add_generation_prompt=True, enable_thinking=False, return_tensors="pt", return_dict=True
    )
    torch.manual_seed(args.seed)
    with torch.inference_mode():
        sampling = {"do_sample": True, "top_p": args.top_p, "top_k": args.top_k, "max_new_tokens": args.max_new_tokens}
        output = model.generate(**prompt, **sampling, num_return_sequences=args.count)
    return tokenizer.batch_decode(output[:, prompt["input_ids"].shape[1] :], skip_special_tokens=True)


async def paint(args: argparse.Namespace, replies: list[str]) -> int:
    """Writes painting-NN.png (when it rendered), .js and .json; returns how many passed the gate."""
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    async with EnvClient(args.env_url) as env:
        evaluations = await env.evaluate(replies, seed=args.seed, options=EpisodeOptions(subject=args.subject), include_png=True)
    for index, (reply, evaluation) in enumerate(zip(replies, evaluations, strict=True)):
        stem = out / f"painting-{index:02d}"
        stem.with_suffix(".js").write_text(evaluation.render.code or reply)
        if evaluation.render.png_base64:
            stem.with_suffix(".png").write_bytes(base64.b64decode(evaluation.render.png_base64))
        evaluation.render.png_base64 = None
        stem.with_suffix(".json").write_text(json.dumps(evaluation.model_dump(mode="json"), indent=1))
    return sum(1 for evaluation in evaluations if evaluation.render.passed)


def run(args: argparse.Namespace) -> int:
    replies = write_replies(args)
    passed = asyncio.run(paint(args, replies))
    print(f"{passed} of {len(replies)} paintings passed the gate; written to {args.out}")
    return 0

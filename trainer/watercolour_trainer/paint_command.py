"""`watercolour paint`: a trained policy (base + adapter) paints N pictures through an environment."""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import sys
from pathlib import Path

import torch

from watercolour_shared.env_client import EnvHttpClient
from watercolour_shared.prompts import chat_messages
from watercolour_shared.render_wire import EpisodeOptions
from watercolour_shared.run_dir import run_sampling
from watercolour_shared.sampling import Sampling, flags_of
from watercolour_trainer.model_loading import load_policy, load_tokenizer, load_with_adapter


def load_painter(model: str, adapter: str | None, bf16: bool):
    """The policy (base + adapter when one is given) and its tokenizer, ready to generate."""
    policy = load_with_adapter(model, adapter, bf16) if adapter else load_policy(model, bf16)
    return policy.eval(), load_tokenizer(adapter or model)


def sample_replies(model, tokenizer, subject: str, seed: int, count: int, sampling: Sampling) -> list[str]:
    """`count` replies to the policy's prompt for `subject`, sampled after seeding torch with `seed`."""
    prompt = tokenizer.apply_chat_template(
        chat_messages(subject), add_generation_prompt=True, enable_thinking=False, return_tensors="pt", return_dict=True
    )
    torch.manual_seed(seed)
    with torch.inference_mode():
        output = model.generate(**prompt, **sampling.generate_kwargs(), num_return_sequences=count)
    return tokenizer.batch_decode(output[:, prompt["input_ids"].shape[1] :], skip_special_tokens=True)


def paint_sampling(args: argparse.Namespace) -> Sampling:
    """As the run sampled whose adapter or model paints (its run.json), else the defaults; a flag given wins."""
    found = next(filter(None, (run_sampling(path) for path in (args.adapter, args.model) if path)), None)
    sampling, note = found or (Sampling(), None)
    if note:
        print(f"watercolour paint: {note}", file=sys.stderr)
    return sampling.overridden(**flags_of(args))


def write_replies(args: argparse.Namespace) -> list[str]:
    sampling = paint_sampling(args)
    model, tokenizer = load_painter(args.model, args.adapter, args.bf16)
    return sample_replies(model, tokenizer, args.subject, args.seed, args.count, sampling)


async def paint(args: argparse.Namespace, replies: list[str]) -> int:
    """Writes painting-NN.png (when it rendered), .js and .json; returns how many passed the gate."""
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    async with EnvHttpClient(args.env_url) as env:
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

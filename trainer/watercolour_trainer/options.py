"""The launch flags: the recipe's names and meanings, plus what a user needs beyond them."""

from __future__ import annotations

import argparse
from pathlib import Path

from watercolour_shared.reward import PRESETS, MixWeights, preset

SCALE_REWARDS = ("none", "group", "batch")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="watercolour_grpo.py", description="GRPO on a watercolour-painting code LLM")
    p.add_argument("--env-url", action="append", required=True, help="an environment; repeat it to spread rollouts")
    p.add_argument("--model", required=True, help="a Hub model id or a local folder")
    p.add_argument("--subject", default="a peach hibiscus")
    p.add_argument("--references", type=int, default=4, help="judge references per rollout")
    p.add_argument("--mix", choices=sorted(PRESETS), default="judge-led", help="the reward mix preset")
    p.add_argument("--weights", help="explicit weights gate,length,judge,hps (wins over --mix)")
    # The policy and its adapter.
    p.add_argument("--lora", action="store_true", help="train a LoRA adapter instead of every weight")
    p.add_argument("--all-linear", action="store_true", help="LoRA on every linear layer of the decoder")
    p.add_argument("--lora-targets", help="comma-separated module names instead of --all-linear")
    p.add_argument("--lora-r", type=int, default=16)
    p.add_argument("--lora-alpha", type=int, default=32)
    p.add_argument("--allow-partial-lora", action="store_true", help="train even if some decoder layers get no LoRA")
    p.add_argument("--bf16", action="store_true", help="load and train in bfloat16 (otherwise float32, stated loudly)")
    p.add_argument("--gradient-checkpointing", action="store_true")
    # Sampling and optimisation, as in the recipe's launch command.
    p.add_argument("--top-p", type=float, default=0.95)
    p.add_argument("--top-k", type=int, default=20)
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--lr", type=float, default=5e-5)
    p.add_argument("--lr-scheduler", default="constant_with_warmup")
    p.add_argument("--warmup-steps", type=int, default=5)
    p.add_argument("--scale-rewards", choices=SCALE_REWARDS, default="none")
    p.add_argument("--beta", type=float, default=0.0, help="KL penalty to the starting policy (the recipe: none)")
    p.add_argument("--steps", type=int, default=110)
    p.add_argument("--n-episodes", type=int, default=240, help="prompts in the training set")
    p.add_argument("--num-generations", type=int, default=8, help="rollouts per group")
    p.add_argument("--per-device-batch-size", type=int, default=1)
    p.add_argument("--gradient-accumulation-steps", type=int, default=8)
    p.add_argument("--max-completion-length", type=int, default=8192)
    p.add_argument("--use-vllm", choices=("colocate", "server"), help="generate with vLLM (installed separately)")
    p.add_argument("--vllm-server-url", help="with --use-vllm server: where `trl vllm-serve` listens")
    # The run: where it writes, what it pushes, how it continues.
    p.add_argument("--run-tag", default="watercolour-grpo", help="names the run (trackio, folders)")
    p.add_argument("--run-dir", type=Path, help="the local run directory (default runs/RUN_TAG)")
    p.add_argument("--out", help="Hub repo for the adapter (the rollouts dataset goes to OUT-rollouts)")
    p.add_argument("--push-to-hub", action="store_true")
    p.add_argument("--save-steps", type=int, default=10, help="checkpoint every N steps")
    p.add_argument("--resume", action="store_true", help="continue from the last checkpoint in the run directory")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--report-to", default="trackio", help="trackio, or none")
    p.add_argument("--env-timeout", type=float, default=900.0, help="seconds to wait for one group's rewards")
    p.add_argument("--allow-missing-terms", action="store_true", help="start even if a weighted term is not reachable")
    p.add_argument("--dry-run", action="store_true", help="check everything, print the plan and its cost, exit")
    # For the cost estimate only.
    p.add_argument("--flavor", default="h200", help="the hardware the trainer runs on")
    p.add_argument("--scorer-hardware", default="a100-large", help="the scoring Space's hardware, kept up during the run")
    p.add_argument("--step-seconds", type=float, help="expected seconds per step (default: the recipe's pace)")
    return p


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = parser()
    options = p.parse_args(argv)
    if options.push_to_hub and not options.out:
        p.error("--push-to-hub needs --out USER/REPO")
    if options.lora and options.all_linear and options.lora_targets:
        p.error("--all-linear and --lora-targets exclude each other")
    if options.lora and not (options.all_linear or options.lora_targets):
        p.error("--lora needs --all-linear or --lora-targets (say which layers train)")
    if options.use_vllm == "server" and not options.vllm_server_url:
        p.error("--use-vllm server needs --vllm-server-url")
    try:
        options.mix_weights = mix_weights(options)
    except ValueError as error:
        p.error(str(error))
    options.run_dir = options.run_dir or Path("runs") / options.run_tag
    return options


def mix_weights(options: argparse.Namespace) -> MixWeights:
    """The weights every episode of the run asks the environment for."""
    if not options.weights:
        return preset(options.mix)
    parts = options.weights.split(",")
    if len(parts) != 4:
        raise ValueError("--weights takes four numbers: gate,length,judge,hps")
    gate, length, judge, hps = (float(part) for part in parts)
    return MixWeights(gate=gate, length=length, judge=judge, hps=hps)

"""The launch flags, the one place they are defined, and the recipe files that hold a run's flags.

A recipe (trainer/recipes/*.yaml) maps flag names to values: `lr: 5.0e-5` is `--lr 5e-05`, `lora: true`
is `--lora` and `bf16: false` is `--no-bf16`. `extends: FILE` (relative to the recipe) takes another
recipe's values first, so what several runs share is written once. `--recipe FILE` puts its flags before
the command line's, so a flag given on the command line wins. The Jobs command
(deploy/watercolour_deploy/train_job.py) passes `--recipe` with the same file.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import yaml

from watercolour_shared.reward import DEFAULT_MIX, PRESETS, MixWeights, parse_weights, preset
from watercolour_shared.subjects import DEFAULT_SUBJECT

SCALE_REWARDS = ("none", "group", "batch")
DECODE_EXPERTS = ("batched_mm", "grouped_mm")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="watercolour_grpo.py", description="GRPO on a watercolour-painting code LLM")
    p.add_argument("--recipe", type=Path, help="a YAML file of flags (trainer/recipes/); flags given here win over it")
    p.add_argument("--env-url", action="append", required=True, help="an environment; repeat it to spread rollouts")
    p.add_argument("--model", required=True, help="a Hub model id or a local folder")
    p.add_argument("--subject", action="append", help="what to paint; repeat it for several (default: a peach hibiscus)")
    p.add_argument("--prompts-per-step", type=int, default=1, help="groups per step, each of its own episode (subjects in turn)")
    p.add_argument("--references", type=int, default=4, help="judge references per rollout")
    p.add_argument("--mix", choices=sorted(PRESETS), default=DEFAULT_MIX, help="the reward mix preset")
    p.add_argument(
        "--weights",
        type=_weights,
        help="explicit weights, every term named: judge=0.6,hps=0.3,gate=0.05,length=0.05 (wins over --mix)",
    )
    # The policy and its adapter. The switches a recipe sets also take --no-..., so the command line can undo them.
    switch = argparse.BooleanOptionalAction
    p.add_argument("--lora", action=switch, default=False, help="train a LoRA adapter instead of every weight")
    p.add_argument("--all-linear", action=switch, default=False, help="LoRA on every linear layer of the decoder")
    p.add_argument("--lora-targets", help="comma-separated module names instead of --all-linear")
    p.add_argument("--lora-r", type=int, default=16)
    p.add_argument("--lora-alpha", type=int, default=32)
    p.add_argument("--allow-partial-lora", action="store_true", help="train even if some decoder layers get no LoRA")
    p.add_argument("--bf16", action=switch, default=False, help="load and train in bfloat16 (otherwise float32, stated loudly)")
    p.add_argument("--gradient-checkpointing", action=switch, default=False)
    # Sampling and optimisation.
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
    p.add_argument(
        "--gradient-accumulation-steps", type=int, help="default: a step's rollouts (prompts x generations) per process"
    )
    p.add_argument("--max-completion-length", type=int, default=8192)
    p.add_argument("--min-completion-length", type=int, default=0, help="force at least N new tokens (for measurements)")
    p.add_argument(
        "--compiled-generation",
        action=switch,
        help="generate with a static cache and torch.compile (default: on where CUDA is; --no-compiled-generation: off)",
    )
    p.add_argument(
        "--merged-lora-generation",
        action=switch,
        default=True,
        help="generate with the LoRA merged into the weights, the weights restored exactly before training (issue 26)",
    )
    p.add_argument(
        "--decode-experts",
        choices=DECODE_EXPERTS,
        default="grouped_mm",
        help="MoE experts while decoding: batched_mm (transformers' switch: copies each token's expert weights) "
        "or grouped_mm (reads the active experts in place)",
    )
    p.add_argument(
        "--compile-cache",
        type=Path,
        help="a folder kept between runs for torch.compile's caches and saved artifacts (default: inductor's /tmp)",
    )
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
    p.add_argument(
        "--env-timeout",
        type=float,
        help="seconds to wait for a group's rewards (default: what the environments' /ready report)",
    )
    p.add_argument("--allow-missing-terms", action="store_true", help="start even if a weighted term is not reachable")
    p.add_argument("--dry-run", action="store_true", help="check everything, print the plan and its cost, exit")
    # For the cost estimate only.
    p.add_argument("--flavor", default="h200", help="the hardware the trainer runs on")
    p.add_argument("--scorer-hardware", default="a100-large", help="the scoring Space's hardware, kept up during the run")
    p.add_argument("--step-seconds", type=float, help="expected seconds per step (default: the measured H200 pace, scaled)")
    return p


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The flags of the recipe named by --recipe (if any), then the command line's; checked, never changed after."""
    argv = sys.argv[1:] if argv is None else argv
    p = parser()
    recipe = _recipe_named(argv)
    if recipe:
        try:
            argv = [*_not_given(recipe_flags(recipe, p), argv, p), *argv]
        except (OSError, ValueError, yaml.YAMLError) as error:
            p.error(f"--recipe {recipe}: {error}")
    options = p.parse_args(argv)
    if options.push_to_hub and not options.out:
        p.error("--push-to-hub needs --out USER/REPO")
    if options.lora and options.all_linear and options.lora_targets:
        p.error("--all-linear and --lora-targets exclude each other")
    if options.lora and not (options.all_linear or options.lora_targets):
        p.error("--lora needs --all-linear or --lora-targets (say which layers train)")
    if options.use_vllm == "server" and not options.vllm_server_url:
        p.error("--use-vllm server needs --vllm-server-url")
    options.subject = options.subject or [DEFAULT_SUBJECT]
    try:
        options.gradient_accumulation_steps = accumulation_steps(options, processes())
    except ValueError as error:
        p.error(str(error))
    return options


def processes() -> int:
    """How many training processes share a step: `accelerate launch` says so in WORLD_SIZE."""
    return int(os.environ.get("WORLD_SIZE", "1"))


def accumulation_steps(options: argparse.Namespace, processes: int) -> int:
    """TRL generates batch x accumulation x processes rollouts a step: that must be the step's groups x group size."""
    rollouts = options.prompts_per_step * options.num_generations
    per_micro_batch = options.per_device_batch_size * processes
    if options.gradient_accumulation_steps is None:
        if rollouts % per_micro_batch:
            raise ValueError(f"a step's {rollouts} rollouts do not split into micro-batches of {per_micro_batch}")
        return rollouts // per_micro_batch
    if options.gradient_accumulation_steps * per_micro_batch != rollouts:
        raise ValueError(
            f"--gradient-accumulation-steps {options.gradient_accumulation_steps} x batch {options.per_device_batch_size} x "
            f"{processes} process(es) is not a step's {rollouts} rollouts ({options.prompts_per_step} prompts x "
            f"{options.num_generations} generations); leave it out to have it computed"
        )
    return options.gradient_accumulation_steps


def compiles_generation(options: argparse.Namespace) -> bool:
    """The static-cache, compiled path: on by default where CUDA is (the CPU compiles too slowly to gain)."""
    if options.compiled_generation is not None:
        return options.compiled_generation
    import torch

    return torch.cuda.is_available() and options.use_vllm is None


def recipe_flags(path: Path, p: argparse.ArgumentParser | None = None) -> list[str]:
    """A recipe file's flags as the command line spells them; a name that is not a launch flag is refused."""
    known = {flag for action in (p or parser())._actions for flag in action.option_strings}
    flags = []
    for name, value in recipe_values(Path(path)).items():
        if value is None:
            raise ValueError(f"{name} has no value")
        flag = f"--{name}" if value is not False else f"--no-{name}"
        if flag not in known:
            raise ValueError(f"{name}: {value!r} is not a launch flag (see `watercolour_grpo.py --help`)")
        values = value if isinstance(value, list) else [value]
        for item in values:
            flags += [flag] if isinstance(item, bool) else [flag, str(item)]
    return flags


def recipe_values(path: Path, extended_by: tuple[Path, ...] = ()) -> dict:
    """The recipe's flag values by name: those of the file it extends, then its own, which win."""
    recipe = yaml.safe_load(path.read_text())
    if not isinstance(recipe, dict):
        raise ValueError(f"{path}: a recipe maps flag names to values")
    base = recipe.pop("extends", None)
    if base is None:
        return recipe
    base_path = (path.parent / str(base)).resolve()
    if base_path in (path.resolve(), *extended_by):
        raise ValueError(f"{path}: extends {base}, which extends it back")
    return {**recipe_values(base_path, (*extended_by, path.resolve())), **recipe}


def mix_weights(options: argparse.Namespace) -> MixWeights:
    """The weights every episode of the run asks the environment for."""
    return options.weights or preset(options.mix)


def run_directory(options: argparse.Namespace) -> Path:
    return options.run_dir or Path("runs") / options.run_tag


def _not_given(flags: list[str], argv: list[str], p: argparse.ArgumentParser) -> list[str]:
    """The recipe's flags less the repeatable ones the command line also gives: there, too, the command line wins."""
    repeatable = {flag for action in p._actions if isinstance(action, argparse._AppendAction) for flag in action.option_strings}
    overridden = repeatable & {arg.split("=", 1)[0] for arg in argv}
    kept, skip = [], False
    for index, flag in enumerate(flags):
        if skip:
            skip = False
        elif flag in overridden:
            skip = index + 1 < len(flags) and not flags[index + 1].startswith("--")
        else:
            kept.append(flag)
    return kept


def _recipe_named(argv: list[str]) -> Path | None:
    """--recipe alone, read before the full parse so its flags can go first."""
    first = argparse.ArgumentParser(add_help=False)
    first.add_argument("--recipe", type=Path)
    return first.parse_known_args(argv)[0].recipe


def _weights(text: str) -> MixWeights:
    try:
        return parse_weights(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None

"""The resolved plan of a run, printed by --dry-run and saved as run.json, with what it will cost."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from watercolour_shared.hardware import hourly_cost
from watercolour_shared.readiness import Readiness
from watercolour_shared.reward import MixWeights

# This trainer's measured pace on one H200 (bench/results/grpo-step-35b-h200-2026-12-03.json: torch 2.11, Triton 3.6,
# transformers 5.20.2; merged-LoRA compiled generation, grouped_mm experts, micro-batches of 8; render and scoring left
# out): a step of one group of 8 x 3072 tokens took 68 s, a step of 4 groups 146 s.
MEASURED_GROUP_S = 68.0
MEASURED_FURTHER_GROUP_S = (146.0 - 68.0) / 3  # each group after the first, generated beside it
MEASURED_TOKENS = 3072
MEASURED_MICRO_BATCH = 8


def measured_step_seconds(options: argparse.Namespace) -> tuple[float, str]:
    """A step's seconds at the measured pace, and where the number comes from. Generation and training both grow
    with the tokens, so completions longer than measured scale it: an upper bound, every completion at its maximum."""
    groups = MEASURED_GROUP_S + MEASURED_FURTHER_GROUP_S * (options.prompts_per_step - 1)
    scale = max(1.0, options.max_completion_length / MEASURED_TOKENS)
    source = f"the measured H200 step ({MEASURED_TOKENS}-token completions, x{scale:.2f} for {options.max_completion_length})"
    if options.per_device_batch_size != MEASURED_MICRO_BATCH:
        source += f"; measured in micro-batches of {MEASURED_MICRO_BATCH}, not this run's {options.per_device_batch_size}"
    return groups * scale, source + "; render and scoring not included"


def build_plan(
    options: argparse.Namespace, weights: MixWeights, run_dir: Path, replicas: list[str], readiness: dict[str, Readiness]
) -> dict:
    if options.step_seconds:
        step_seconds, pace_source = options.step_seconds, "--step-seconds"
    else:
        step_seconds, pace_source = measured_step_seconds(options)
    hours = options.steps * step_seconds / 3600
    gpu, scorer = hourly_cost(options.flavor), hourly_cost(options.scorer_hardware)
    return {
        "model": options.model,
        "subjects": options.subject,
        "recipe": str(options.recipe) if options.recipe else None,
        "weights": weights.model_dump(),
        "mix": None if options.weights else options.mix,
        "env_urls": options.env_url,
        "replicas": replicas,
        "terms": {url: {"configured": r.terms_configured, "reachable": r.terms_reachable} for url, r in readiness.items()},
        "judge": next((r.judge for r in readiness.values() if r.judge), None),
        "steps": options.steps,
        "prompts_per_step": options.prompts_per_step,
        "rollouts": options.steps * options.prompts_per_step * options.num_generations,
        "lora": _lora(options),
        "dtype": "bfloat16" if options.bf16 else "float32",
        "sampling": {"top_p": options.top_p, "top_k": options.top_k, "temperature": options.temperature},
        "optimisation": {
            "lr": options.lr,
            "scheduler": options.lr_scheduler,
            "warmup_steps": options.warmup_steps,
            "scale_rewards": options.scale_rewards,
            "num_generations": options.num_generations,
            "per_device_batch_size": options.per_device_batch_size,
            "gradient_accumulation_steps": options.gradient_accumulation_steps,
            "max_completion_length": options.max_completion_length,
            "min_completion_length": options.min_completion_length,
            # Decided when the policy loads (torch is not imported for a plan): on where CUDA is, unless told.
            "compiled_generation": "on where CUDA is" if options.compiled_generation is None else options.compiled_generation,
        },
        "run_dir": str(run_dir),
        "push_to": options.out if options.push_to_hub else None,
        "estimate": {
            "step_seconds": round(step_seconds),
            "step_seconds_source": pace_source,
            "hours": round(hours, 1),
            "usd_trainer": None if gpu is None else round(hours * gpu, 2),
            "usd_scorer_space": None if scorer is None else round(hours * scorer, 2),
        },
    }


def _lora(options: argparse.Namespace) -> dict | None:
    if not options.lora:
        return None
    targets = "all-linear" if options.all_linear else options.lora_targets
    return {"targets": targets, "r": options.lora_r, "alpha": options.lora_alpha}


def describe(plan: dict) -> str:
    estimate = plan["estimate"]
    prompts, group = plan["prompts_per_step"], plan["optimisation"]["num_generations"]
    cost = " + ".join(
        f"${estimate[key]:,.2f} {label}"
        for key, label in (("usd_trainer", "trainer"), ("usd_scorer_space", "scorer Space"))
        if estimate[key] is not None
    )
    head = (
        f"{plan['model']} paints {' / '.join(plan['subjects'])}: {plan['steps']} steps x {group * prompts} rollouts "
        f"({prompts} prompt(s) x {group}) over {len(plan['replicas'])} environment replica(s)\n"
        f"about {estimate['hours']} h ({estimate['step_seconds']} s a step, from {estimate['step_seconds_source']})"
        f"{': ' + cost if cost else ''}\n"
    )
    return head + json.dumps(plan, indent=2)

"""The resolved plan of a run, printed by --dry_run and saved as run.json, with what it will cost."""

from __future__ import annotations

import json
import math
from pathlib import Path

from watercolour_shared.hardware import hourly_cost
from watercolour_shared.readiness import Readiness
from watercolour_shared.sampling import Sampling
from watercolour_trainer.config import REVISION_FIELDS, WatercolourGRPOConfig

# This trainer's measured pace on one H200 (bench/results/grpo-step-35b-h200-2026-12-03.json: torch 2.11, Triton 3.6,
# transformers 5.20.2; merged-LoRA compiled generation, grouped_mm experts, micro-batches of 8): generating and
# training a step of one group of 8 x 3072 tokens took 68 s, a step of 4 groups 146 s. The real environment on the
# same host (bench/results/grpo-env-step-35b-h200-2026-12-03.json: 8 browsers, GPU WebGL through EGL) rendered and
# scored a group of 8 in 8.35 s, while the trainer waited: that step took 78.75 s in all.
MEASURED_GROUP_S = 68.0
MEASURED_FURTHER_GROUP_S = (146.0 - 68.0) / 3  # each group after the first, generated beside it
MEASURED_RENDER_S = 8.35  # a group of 8's render and scoring; a step's groups share the 8 browsers, one after another
MEASURED_TOKENS = 3072
MEASURED_MICRO_BATCH = 8


def measured_step_seconds(config: WatercolourGRPOConfig) -> tuple[float, str]:
    """A step's seconds at the measured pace, and where the number comes from. Generation and training both grow
    with the tokens, so completions longer than measured scale it: an upper bound, every completion at its maximum."""
    groups = MEASURED_GROUP_S + MEASURED_FURTHER_GROUP_S * (config.prompts_per_step - 1)
    renders = MEASURED_RENDER_S * config.prompts_per_step
    scale = max(1.0, config.max_completion_length / MEASURED_TOKENS)
    source = (
        f"the measured H200 step with the environment beside it ({MEASURED_TOKENS}-token completions, "
        f"x{scale:.2f} for {config.max_completion_length})"
    )
    if config.per_device_train_batch_size != MEASURED_MICRO_BATCH:
        source += f"; measured in micro-batches of {MEASURED_MICRO_BATCH}, not this run's {config.per_device_train_batch_size}"
    return (groups + renders) * scale, source


def planned_steps(config: WatercolourGRPOConfig) -> int:
    """max_steps, or (TRL's way when it is not set) the epochs over the episodes, a step's groups at a time."""
    if config.max_steps > 0:
        return config.max_steps
    return math.ceil(config.n_episodes / config.prompts_per_step * config.num_train_epochs)


def build_plan(config: WatercolourGRPOConfig, run_dir: Path, replicas: list[str], readiness: dict[str, Readiness]) -> dict:
    """run.json: what the run's readers use by name (RunPlan), the environments, the estimate, and the whole parsed
    config as TRL writes it."""
    if config.step_seconds:
        step_seconds, pace_source = config.step_seconds, "--step_seconds"
    else:
        step_seconds, pace_source = measured_step_seconds(config)
    steps = planned_steps(config)
    hours = steps * step_seconds / 3600
    gpu, scorer = hourly_cost(config.flavor), hourly_cost(config.scorer_hardware)
    lora = {"targets": config.lora_targets, "r": config.lora_r, "alpha": config.lora_alpha} if config.use_peft else None
    return {
        "model": config.model_name_or_path,
        "subjects": config.subjects,
        "recipe": str(config.recipe) if config.recipe else None,
        "weights": config.mix_weights().model_dump(),
        "lora": lora,
        "push_to": config.hub_model_id if config.push_to_hub else None,
        "judge": next((r.judge for r in readiness.values() if r.judge), None),
        "sampling": Sampling.of_config(config).model_dump(),
        "eval_steps": config.eval_steps,
        "env_urls": config.env_url,
        "replicas": replicas,
        "terms": {url: {"configured": r.terms_configured, "reachable": r.terms_reachable} for url, r in readiness.items()},
        "steps": steps,
        "rollouts": steps * config.prompts_per_step * config.num_generations,
        "run_dir": str(run_dir),
        "estimate": {
            "step_seconds": round(step_seconds),
            "step_seconds_source": pace_source,
            "hours": round(hours, 1),
            "usd_trainer": None if gpu is None else round(hours * gpu, 2),
            "usd_scorer_space": None if scorer is None else round(hours * scorer, 2),
        },
        "config": _written(config),
    }


def _written(config: WatercolourGRPOConfig) -> dict:
    """The whole parsed config as TRL writes it; a run without revisions leaves their fields out (a bonus without
    revisions is refused), so it writes the run.json it wrote before they existed."""
    written = json.loads(config.to_json_string())
    if not config.revisions:
        for name in REVISION_FIELDS:
            written.pop(name)
    return written


def describe(plan: dict) -> str:
    estimate, config = plan["estimate"], plan["config"]
    prompts, group = config["prompts_per_step"], config["num_generations"]
    revised = f", each painted {config['revisions'] + 1} times" if config.get("revisions") else ""
    cost = " + ".join(
        f"${estimate[key]:,.2f} {label}"
        for key, label in (("usd_trainer", "trainer"), ("usd_scorer_space", "scorer Space"))
        if estimate[key] is not None
    )
    head = (
        f"{plan['model']} paints {' / '.join(plan['subjects'])}: {plan['steps']} steps x {group * prompts} rollouts "
        f"({prompts} prompt(s) x {group}{revised}) over {len(plan['replicas'])} environment replica(s)\n"
        f"about {estimate['hours']} h ({estimate['step_seconds']} s a step, from {estimate['step_seconds_source']})"
        f"{': ' + cost if cost else ''}\n"
    )
    return head + json.dumps(plan, indent=2)

"""GRPO through the project's real launch script, as a child process against the local stack."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from watercolour_harness.processes import start
from watercolour_harness.stack import REFERENCES, ROOT
from watercolour_shared.sampling import Sampling

SCRIPT = ROOT / "trainer" / "watercolour_grpo.py"


@dataclass(frozen=True)
class GrpoSettings:
    subjects: tuple[str, ...]  # one a step, in turn
    steps: int
    group_size: int
    max_completion_length: int
    lr: float
    weights: str  # one number per term, in the order of watercolour_shared.reward.MIX_TERMS
    scale_rewards: str = "none"
    # TRL's: sum the terms, then take the group's advantage; or normalise each term in its group first (GDPO).
    aggregation: str = "sum_then_normalize"
    beta: float = 0.0  # KL penalty to the warm start
    lora: bool = False  # a LoRA on every linear layer instead of training every weight
    temperature: float = Sampling().temperature
    seed: int = 0
    report_to: str = "trackio"
    run_name: str = "demo"  # trackio's name for the run: a name used before would add this run's steps to that one

    @property
    def sampling(self) -> Sampling:
        """GRPO's sampling: the shared defaults' top-k and top-p (TRL's own sample the whole tail, where the tiny
        policy's broken numbers are: half its rollouts then fail), this temperature and completion length. The
        warm start's check repeats it, and the run records it, so the closing eval samples as the run sampled."""
        return Sampling(temperature=self.temperature, max_new_tokens=self.max_completion_length)


def trainer_command(env_url: str, model: Path, run_dir: Path, settings: GrpoSettings) -> list[str]:
    s = settings
    micro_batch = next(size for size in (4, 2, 1) if s.group_size % size == 0)
    return [
        sys.executable, str(SCRIPT), "--env_url", env_url, "--model_name_or_path", str(model), "--subjects", *s.subjects,
        "--references", str(REFERENCES), "--weights", s.weights, "--max_steps", str(s.steps), "--n_episodes", str(s.steps),
        # One group a step and one optimiser step a group, in micro-batches of up to 4 (the logits of 8 long
        # replies at once take the trainer's memory past a gigabyte and a half).
        "--num_generations", str(s.group_size), "--per_device_train_batch_size", str(micro_batch),
        "--gradient_accumulation_steps", str(s.group_size // micro_batch),
        "--max_completion_length", str(s.sampling.max_new_tokens),
        "--learning_rate", str(s.lr), "--lr_scheduler_type", "constant", "--warmup_steps", "0",
        "--temperature", str(s.sampling.temperature), "--top_k", str(s.sampling.top_k), "--top_p", str(s.sampling.top_p),
        "--scale_rewards", s.scale_rewards, "--multi_objective_aggregation", s.aggregation, "--beta", str(s.beta),
        # float32 (TRL's default is bf16, which a CPU does slowly) and no recompute (the policy is small).
        "--bf16", "false", "--gradient_checkpointing", "false",
        "--save_steps", str(s.steps), "--seed", str(s.seed), "--output_dir", str(run_dir), "--run_name", s.run_name,
        "--report_to", s.report_to, "--flavor", "cpu-basic", "--scorer_hardware", "cpu-basic",
        *(["--use_peft", "--lora_target_modules", "all-linear"] if s.lora else []),
    ]  # fmt: skip


def child_environment() -> dict[str, str]:
    """What a child that loads a policy runs with: its lines logged as they come, the tokenizer on one thread."""
    return {**os.environ, "PYTHONUNBUFFERED": "1", "TOKENIZERS_PARALLELISM": "false"}


def start_trainer(command: list[str], log: Path) -> subprocess.Popen:
    return start(command, log, child_environment(), ROOT)

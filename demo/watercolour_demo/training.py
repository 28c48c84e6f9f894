"""GRPO through the project's real launch script, as a child process against the local stack."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from watercolour_demo.processes import start
from watercolour_demo.stack import REFERENCES, ROOT

SCRIPT = ROOT / "trainer" / "watercolour_grpo.py"


@dataclass(frozen=True)
class GrpoSettings:
    subject: str
    steps: int
    group_size: int
    max_completion_length: int
    lr: float
    weights: str  # gate,length,judge,hps
    scale_rewards: str = "none"
    lora: bool = False  # a LoRA on every linear layer instead of training every weight
    temperature: float = 1.0
    seed: int = 0
    report_to: str = "trackio"


def trainer_command(env_url: str, model: Path, run_dir: Path, settings: GrpoSettings) -> list[str]:
    s = settings
    return [
        sys.executable, str(SCRIPT), "--env-url", env_url, "--model", str(model), "--subject", s.subject,
        "--references", str(REFERENCES), "--weights", s.weights, "--steps", str(s.steps), "--n-episodes", str(s.steps),
        # One group a step, one optimiser step a group: the whole group in one batch.
        "--num-generations", str(s.group_size), "--per-device-batch-size", str(s.group_size),
        "--gradient-accumulation-steps", "1", "--max-completion-length", str(s.max_completion_length),
        "--lr", str(s.lr), "--lr-scheduler", "constant", "--warmup-steps", "0", "--temperature", str(s.temperature),
        "--scale-rewards", s.scale_rewards,
        "--save-steps", str(s.steps), "--seed", str(s.seed), "--run-dir", str(run_dir), "--run-tag", run_dir.name,
        "--report-to", s.report_to, "--flavor", "cpu-basic", "--scorer-hardware", "cpu-basic",
        *(["--lora", "--all-linear"] if s.lora else []),
    ]  # fmt: skip


def start_trainer(command: list[str], log: Path) -> subprocess.Popen:
    return start(command, log, {**os.environ, "PYTHONUNBUFFERED": "1", "TOKENIZERS_PARALLELISM": "false"}, ROOT)

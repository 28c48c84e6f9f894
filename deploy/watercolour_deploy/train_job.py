"""The recipe's training run on Hugging Face Jobs: `hf jobs uv run` on the trainer script, with the
recipe's flags for a reward mix. `hf jobs uv run` ships only the script (its PEP 723 header holds the
third-party dependencies; shared/ and trainer/ go along as mounted folders, run from the checkout's
root) and, without --detach, follows the job's logs until the job ends."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from watercolour_deploy.hardware import price
from watercolour_shared.hardware import hourly_cost

SCRIPT = "trainer/watercolour_grpo.py"
# The script imports the project's packages from WATERCOLOUR_SRC (see its docstring).
SOURCES = (
    "-v",
    "./shared:/opt/watercolour/shared",
    "-v",
    "./trainer:/opt/watercolour/trainer",
    "-e",
    "WATERCOLOUR_SRC=/opt/watercolour",
)
# The recipe's runs: 110 steps for the two led mixes, 60 for the hps-only pipeline check.
RECIPE_STEPS = {"judge-led": 110, "hps-led": 110, "hps-only": 60}
RECIPE_MODEL = "Qwen/Qwen3.5-35B-A3B"
# The recipe's launch command, except what a run chooses (environment, mix, model, steps, names).
RECIPE_FLAGS = (
    "--lora", "--all-linear", "--bf16", "--gradient-checkpointing",
    "--subject", "a peach hibiscus", "--references", "4", "--top-p", "0.95", "--top-k", "20",
    "--lr", "5e-5", "--lr-scheduler", "constant_with_warmup", "--warmup-steps", "5", "--scale-rewards", "none",
    "--n-episodes", "240", "--num-generations", "8", "--per-device-batch-size", "1", "--gradient-accumulation-steps", "8",
    "--max-completion-length", "8192",
)  # fmt: skip


@dataclass(frozen=True)
class JobPlan:
    env_urls: list[str]
    mix: str
    model: str
    steps: int
    run_tag: str
    out: str
    flavor: str = "h200"
    timeout: str = "48h"
    seed: int = 0
    extra: list[str] = field(default_factory=list)

    def trainer_args(self) -> list[str]:
        urls = [arg for url in self.env_urls for arg in ("--env-url", url)]
        run = ["--mix", self.mix, "--model", self.model, "--steps", str(self.steps), "--seed", str(self.seed)]
        names = ["--run-tag", self.run_tag, "--out", self.out, "--push-to-hub"]
        return [*urls, *run, *RECIPE_FLAGS, *names, *self.extra]

    def command(self, hf: str) -> list[str]:
        launch = ["--flavor", self.flavor, "--timeout", self.timeout, "--secrets", "HF_TOKEN", "--name", self.run_tag]
        return [hf, "jobs", "uv", "run", *launch, *SOURCES, SCRIPT, "--", *self.trainer_args()]

    def cost_note(self, scorer_hardware: str) -> str:
        job = hourly_cost(self.flavor)
        hours = timeout_hours(self.timeout)
        bound = f"at most ${job * hours:,.2f} ({hours:g} h at ${job:.2f}/h)" if job is not None else "price unknown"
        return f"{self.flavor}: {bound}; the scorer Space ({scorer_hardware}) costs {price(scorer_hardware)} while it is up"


def timeout_hours(timeout: str) -> float:
    """`hf jobs` durations: a number with s (the default), m, h or d."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([smhd]?)", timeout)
    if not match:
        raise ValueError(f"not a duration: {timeout!r} (e.g. 48h, 90m)")
    seconds_per = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[match[2]]
    return float(match[1]) * seconds_per / 3600

"""A recipe's training run on Hugging Face Jobs: `hf jobs uv run` on the trainer script with a recipe file.

`hf jobs uv run` ships only the script (its PEP 723 header holds the third-party dependencies). The
project's packages go along as mounted folders, run from the checkout's root, and the recipe travels
inside the mounted trainer/ folder: the job reads the very file a local run and the compose trainer
read, through TRL's --config flag, so no copy of its flags can drift. Without --detach the command
follows the job's logs until the job ends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from watercolour_deploy.space_hardware import price
from watercolour_shared.hardware import hourly_cost

SCRIPT = "trainer/watercolour_grpo.py"
RECIPES = "trainer/recipes"


def recipe_path(recipe: str) -> str:
    """A recipe's file under the checkout: a name in trainer/recipes/ (`hps-led`), or a .yaml path as given."""
    return recipe if recipe.endswith((".yaml", ".yml")) else f"{RECIPES}/{recipe}.yaml"


# Where the job mounts the checkout's folders; the script imports the project's packages from WATERCOLOUR_SRC.
JOB_ROOT = "/opt/watercolour"
MOUNTED = ("shared", "trainer")
SOURCES = (
    *(arg for folder in MOUNTED for arg in ("-v", f"./{folder}:{JOB_ROOT}/{folder}")),
    "-e",
    f"WATERCOLOUR_SRC={JOB_ROOT}",
)


def in_job(path: str) -> str:
    """Where a file of the checkout (a path relative to its root) is inside the job; only mounted folders travel."""
    relative = PurePosixPath(path)
    if relative.is_absolute() or relative.parts[0] not in MOUNTED or ".." in relative.parts:
        raise ValueError(f"{path} is not in a folder the job mounts ({', '.join(MOUNTED)})")
    return str(PurePosixPath(JOB_ROOT, relative))


@dataclass(frozen=True)
class JobPlan:
    env_urls: list[str]
    recipe: str  # relative to the checkout's root, e.g. trainer/recipes/judge-led.yaml
    run_tag: str
    out: str
    flavor: str = "h200"
    timeout: str = "48h"
    extra: list[str] = field(default_factory=list)

    def trainer_args(self) -> list[str]:
        names = ["--run_name", self.run_tag, "--hub_model_id", self.out, "--push_to_hub"]
        # The trainer prices its plan by --flavor: the hardware the job asks for, not the trainer's default.
        return ["--env_url", *self.env_urls, "--config", in_job(self.recipe), "--flavor", self.flavor, *names, *self.extra]

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

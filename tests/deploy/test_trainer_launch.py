"""trainer/container-launch.sh, the trainer image's command: it runs the recipe file WATERCOLOUR_RECIPE names,
the flags it builds from the other WATERCOLOUR_* variables are ones the trainer accepts, every environment URL
becomes an --env_url value, and pushing to the Hub without HF_TOKEN stops at once. A stand-in `python` prints the
arguments it was given. The compose trainer and the Jobs command run the same recipe file."""

from __future__ import annotations

import os
import re
import stat
import subprocess
from pathlib import Path

import pytest

from tests.deploy import dockerfile
from tests.deploy.launch_script import defaults as launch_defaults
from watercolour_deploy.train_job import JOB_ROOT, JobPlan, recipe_path
from watercolour_shared.cli import parser as watercolour_parser
from watercolour_trainer.config import field_names, parse
from watercolour_trainer.recipe_file import recipe_values

ROOT = Path(__file__).resolve().parents[2]
RECIPES = sorted((ROOT / "trainer" / "recipes").glob("*.yaml"))


@pytest.fixture
def launch(tmp_path):
    fake = tmp_path / "python"
    fake.write_text('#!/bin/sh\nprintf "%s\\n" "$@"\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)

    def run(**variables: str) -> subprocess.CompletedProcess:
        env = {"PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}", **variables}
        return subprocess.run(["sh", "trainer/container-launch.sh"], cwd=ROOT, env=env, capture_output=True, text=True)

    return run


def parsed(result: subprocess.CompletedProcess, monkeypatch):
    """What the trainer makes of the arguments, in the image's working directory (the repository's layout)."""
    assert result.returncode == 0, result.stderr
    script, *args = result.stdout.splitlines()
    assert script == "trainer/watercolour_grpo.py" and (ROOT / script).is_file()
    monkeypatch.chdir(ROOT)
    return parse([*args, "--use_cpu"])  # this machine has no GPU for the recipes' bf16


def job_parsed(plan: JobPlan):
    """What the trainer makes of the Jobs command, with the job's mounted folders read from the checkout."""
    args = plan.trainer_args()
    return parse([*(arg.replace(JOB_ROOT, str(ROOT)) if arg.startswith(JOB_ROOT) else arg for arg in args), "--use_cpu"])


def test_the_image_defaults_are_the_recipe_on_the_compose_environment(launch, monkeypatch):
    run = parsed(launch(), monkeypatch)
    assert run.env_url == ["http://env:8000"] and run.recipe == Path("trainer/recipes/judge-led.yaml")
    assert run.recipe.parent.as_posix() in dockerfile.copy_sources(dockerfile.stages(ROOT / "trainer" / "Dockerfile"))
    assert (run.mix, run.model_name_or_path, run.max_steps) == ("judge-led", "Qwen/Qwen3.5-35B-A3B", 110)
    assert run.lora_targets == "all-linear" and run.bf16 and run.gradient_checkpointing
    assert run.run_dir == Path("/runs/compose-run") and run.run_name == "compose-run"
    assert not run.push_to_hub and run.hub_model_id is None


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda path: path.stem)
def test_the_compose_trainer_and_the_job_run_the_same_recipe(recipe, launch, monkeypatch):
    relative = recipe.relative_to(ROOT).as_posix()
    compose = parsed(launch(WATERCOLOUR_RECIPE=relative), monkeypatch)
    job = job_parsed(JobPlan(env_urls=["https://me-watercolour-env.hf.space"], recipe=relative, run_tag="t", out="me/o"))
    for name in recipe_values(recipe, field_names()):
        assert getattr(compose, name) == getattr(job, name), name


def test_every_environment_url_is_an_env_url(launch, monkeypatch):
    urls = "http://env:8000 http://10.0.0.7:8000"
    run = parsed(launch(WATERCOLOUR_ENV_URLS=urls, WATERCOLOUR_RECIPE="trainer/recipes/hps-only.yaml"), monkeypatch)
    assert run.env_url == ["http://env:8000", "http://10.0.0.7:8000"] and (run.mix, run.max_steps) == ("hps-only", 60)


def test_extra_flags_are_passed_on_word_by_word_and_win_over_the_recipe(launch, monkeypatch):
    run = parsed(launch(WATERCOLOUR_TRAIN_ARGS="--seed 7 --resume_from_checkpoint last --max_steps 3 --bf16 false"), monkeypatch)
    assert (run.seed, run.resume_from_checkpoint, run.max_steps, run.bf16, run.use_peft) == (7, "last", 3, False, True)


def test_pushing_needs_hf_token(launch, monkeypatch):
    refused = launch(WATERCOLOUR_TRAIN_OUT="you/watercolour-grpo")
    assert refused.returncode != 0 and "HF_TOKEN is required" in refused.stderr and not refused.stdout
    run = parsed(launch(WATERCOLOUR_TRAIN_OUT="you/watercolour-grpo", HF_TOKEN="hf_x"), monkeypatch)
    assert run.hub_model_id == "you/watercolour-grpo" and run.push_to_hub


def test_a_missing_setting_stops_the_launch(launch):
    refused = launch(WATERCOLOUR_RECIPE="")
    assert refused.returncode != 0 and "WATERCOLOUR_RECIPE" in refused.stderr and not refused.stdout


def test_the_default_recipe_is_one_file_for_compose_and_for_jobs():
    """The compose trainer's default recipe is written in container-launch.sh (and in .env.example, which
    tests/test_compose.py holds to it); the Jobs command's is its --recipe default. They are one file, in the folder
    the trainer image copies, and the comments that list the recipes (.env.example, the Makefile) list every file."""
    compose = launch_defaults(ROOT / "trainer" / "container-launch.sh")["WATERCOLOUR_RECIPE"]
    jobs = recipe_path(watercolour_parser().parse_args(["train-job"]).recipe)
    assert compose == jobs and (ROOT / compose).is_file()
    assert Path(compose).parent.as_posix() in dockerfile.copy_sources(dockerfile.stages(ROOT / "trainer" / "Dockerfile"))
    names = sorted(path.stem for path in RECIPES)
    env_example = re.search(r"\(trainer/recipes/: ([^)]*)\)", (ROOT / ".env.example").read_text())[1]
    makefile = re.search(r"RECIPE=([\w|-]+)", (ROOT / "Makefile").read_text())[1]
    assert sorted(env_example.split(", ")) == names and sorted(makefile.split("|")) == names

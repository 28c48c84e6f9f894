"""trainer/container-launch.sh, the trainer image's command: the flags it builds from the WATERCOLOUR_*
variables are ones the trainer accepts, every environment URL becomes an --env-url, and pushing to the
Hub without HF_TOKEN stops at once. A stand-in `python` prints the arguments it was given."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from tests.deploy import dockerfile
from watercolour_trainer import options

ROOT = Path(__file__).resolve().parents[2]
IMAGE_DEFAULTS = dockerfile.environment(dockerfile.stages(ROOT / "trainer" / "Dockerfile"))


@pytest.fixture
def launch(tmp_path):
    fake = tmp_path / "python"
    fake.write_text('#!/bin/sh\nprintf "%s\\n" "$@"\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)

    def run(**variables: str) -> subprocess.CompletedProcess:
        launch_variables = {key: value for key, value in IMAGE_DEFAULTS.items() if key.startswith("WATERCOLOUR_")}
        env = {"PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}", **launch_variables, **variables}
        return subprocess.run(["sh", "trainer/container-launch.sh"], cwd=ROOT, env=env, capture_output=True, text=True)

    return run


def parsed(result: subprocess.CompletedProcess):
    assert result.returncode == 0, result.stderr
    script, *args = result.stdout.splitlines()
    assert script == "trainer/watercolour_grpo.py" and (ROOT / script).is_file()
    return options.parse(args)


def test_the_image_defaults_are_the_recipe_on_the_compose_environment(launch):
    run = parsed(launch())
    assert run.env_url == ["http://env:8000"]
    assert (run.mix, run.model, run.steps) == ("judge-led", "Qwen/Qwen3.5-35B-A3B", 110)
    assert run.lora and run.all_linear and run.bf16 and run.gradient_checkpointing
    assert run.run_dir == Path("/runs/compose-run") and run.run_tag == "compose-run"
    assert not run.push_to_hub and run.out is None


def test_every_environment_url_becomes_an_env_url(launch):
    run = parsed(launch(WATERCOLOUR_ENV_URLS="http://env:8000 http://10.0.0.7:8000", WATERCOLOUR_MIX="hps-only"))
    assert run.env_url == ["http://env:8000", "http://10.0.0.7:8000"] and run.mix == "hps-only"


def test_extra_flags_are_passed_on_word_by_word(launch):
    run = parsed(launch(WATERCOLOUR_TRAIN_ARGS="--lora --all-linear --seed 7 --resume", WATERCOLOUR_TRAIN_STEPS="3"))
    assert (run.seed, run.resume, run.steps, run.bf16) == (7, True, 3, False)


def test_pushing_needs_hf_token(launch):
    refused = launch(WATERCOLOUR_TRAIN_OUT="you/watercolour-grpo")
    assert refused.returncode != 0 and "HF_TOKEN is required" in refused.stderr and not refused.stdout
    run = parsed(launch(WATERCOLOUR_TRAIN_OUT="you/watercolour-grpo", HF_TOKEN="hf_x"))
    assert run.out == "you/watercolour-grpo" and run.push_to_hub


def test_a_missing_setting_stops_the_launch(launch):
    refused = launch(WATERCOLOUR_MIX="")
    assert refused.returncode != 0 and "WATERCOLOUR_MIX" in refused.stderr and not refused.stdout

"""examples/trl_grpo.py as a TRL user runs it: their model (here a tiny random Qwen3 with Qwen3's own
tool-calling chat template, built here), TRL's parser and GRPOTrainer, our environment as a real server."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import fields

import pytest
from trl import GRPOConfig
from trl.chat_template_utils import qwen3_chat_template

from tests.conftest import ROOT
from tests.trainer.conftest import corpus
from watercolour_harness.tiny_policy import SIZES, build_policy, build_tokenizer, save_policy

EXAMPLE = ROOT / "examples" / "trl_grpo.py"


@pytest.fixture(scope="module")
def tool_calling_policy(tmp_path_factory):
    tokenizer = build_tokenizer(corpus(), vocab_size=1024)
    tokenizer.chat_template = qwen3_chat_template  # TRL parses tool calls for the templates it knows
    return save_policy(build_policy(tokenizer, SIZES["tiny"]), tokenizer, tmp_path_factory.mktemp("tool-policy"))


def test_the_example_trains_two_steps_with_the_environments_reward(server_url, tool_calling_policy, tmp_path):
    out = tmp_path / "run"
    run = subprocess.run(
        [
            sys.executable,
            str(EXAMPLE),
            "--model_name_or_path",
            str(tool_calling_policy),
            "--env_url",
            server_url,
            "--output_dir",
            str(out),
        ]
        + ["--max_steps", "2", "--num_generations", "2", "--per_device_train_batch_size", "2", "--max_completion_length", "32"]
        + ["--use_cpu", "--bf16", "false", "--report_to", "none", "--logging_steps", "1", "--save_strategy", "no"]
        + ["--subjects", "a red poppy", "a fern"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    logged = [line for line in run.stdout.splitlines() if "rewards/WatercolourToolEnv/mean" in line]
    assert len(logged) == 2  # one per step: the environment is the run's reward source
    assert (out / "model.safetensors").exists()


def test_the_example_takes_every_grpo_config_field_as_a_flag():
    shown = subprocess.run([sys.executable, str(EXAMPLE), "--help"], capture_output=True, text=True, timeout=120).stdout
    flags = {word.strip("[],") for word in shown.split() if word.startswith(("--", "[--"))}
    wanted = {f"--{field.name}" for field in fields(GRPOConfig) if field.init} | {
        "--model_name_or_path",
        "--env_url",
        "--subjects",
    }
    assert wanted <= flags, sorted(wanted - flags)

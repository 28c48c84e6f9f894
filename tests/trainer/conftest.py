"""Trainer fixtures: tiny policies built here from config, and the launch script run as a real process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from transformers import Qwen3_5MoeConfig, Qwen3_5MoeForConditionalGeneration

from tests.conftest import ROOT, SKETCHES
from watercolour_harness.scripted_http import ScriptedServer
from watercolour_harness.tiny_policy import SIZES, build_policy, build_tokenizer, save_policy
from watercolour_shared.prompts import system_prompt

SCRIPT = ROOT / "trainer" / "watercolour_grpo.py"


def corpus() -> list[str]:
    return [path.read_text() for path in sorted(SKETCHES.glob("*.js"))] + [system_prompt()]


@pytest.fixture(scope="session")
def tokenizer():
    return build_tokenizer(corpus(), vocab_size=1024)


@pytest.fixture(scope="session")
def tiny_policy(tmp_path_factory, tokenizer) -> Path:
    """A random two-layer Qwen3 decoder and a tokenizer trained on the project's sketches."""
    return save_policy(build_policy(tokenizer, SIZES["tiny"]), tokenizer, tmp_path_factory.mktemp("tiny-policy"))


@pytest.fixture(scope="session")
def tiny_qwen35(tmp_path_factory, tokenizer) -> Path:
    """Qwen3.5-MoE's real architecture at toy size: 8 decoder layers, 2 of them full attention (the real one has 10 of 40)."""
    text = dict(
        vocab_size=len(tokenizer), hidden_size=64, num_hidden_layers=8, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
        linear_key_head_dim=16, linear_value_head_dim=16, linear_num_key_heads=2, linear_num_value_heads=4,
        moe_intermediate_size=32, shared_expert_intermediate_size=32, num_experts=4, num_experts_per_tok=2,
        eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
    )  # fmt: skip
    vision = dict(depth=1, hidden_size=32, intermediate_size=64, num_heads=2, out_hidden_size=64)
    config = Qwen3_5MoeConfig(text_config=text, vision_config=vision, architectures=["Qwen3_5MoeForConditionalGeneration"])
    return save_policy(Qwen3_5MoeForConditionalGeneration(config), tokenizer, tmp_path_factory.mktemp("tiny-qwen35"))


def run_trainer(*args: str, home: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    """The launch script as a user runs it; `home` keeps trackio's local database out of the user's cache."""
    env = {**os.environ, "HF_HOME": str(home)} if home else None
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=timeout, env=env)


# A short run: groups of 4, one group per step, a handful of new tokens; float32 and no recompute (TRL's defaults
# are bf16 and gradient checkpointing).
SHORT_RUN = (
    "--num_generations", "4", "--per_device_train_batch_size", "1", "--max_completion_length", "48", "--n_episodes", "8",
    "--bf16", "false", "--gradient_checkpointing", "false",
)  # fmt: skip


def half_dead_replica(healthy_url: str) -> ScriptedServer:
    """An environment replica whose /health and /ready are the real one's but whose batch call fails: a replica
    dying mid-run, after the trainer's preflight found it ready. Started; the caller stops it."""
    real = {path: httpx.get(f"{healthy_url}{path}") for path in ("/health", "/ready")}
    get = {path: (answer.status_code, answer.content) for path, answer in real.items()}
    return ScriptedServer([(503, {"detail": "replica going down"}, 0)], get=get).start()

"""Sampling has one home (shared/watercolour_shared/sampling.py), and whatever paints with a run's policy samples
as the run sampled: the trainer records it in run.json, and `watercolour eval`, `watercolour paint`, an endpoint
policy and the demo's closing eval read it back; a flag given on the command line wins, one field at a time."""

from __future__ import annotations

import argparse
import asyncio
import json
import re
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.studio.conftest import chat, fenced
from watercolour_harness.scripted_http import ScriptedServer
from watercolour_shared.run_dir import RunReader, RunWriter, run_sampling
from watercolour_shared.sampling import Sampling, flags_of
from watercolour_studio.eval.command import add_eval_command
from watercolour_studio.eval.policies import EndpointPolicy, LocalPolicy, open_policy, policy_samplings
from watercolour_trainer import config
from watercolour_trainer.cli import add_commands as add_trainer_commands
from watercolour_trainer.plan import build_plan

BASE = ROOT / "trainer" / "recipes" / "base" / "qwen3.5-h200.yaml"
ENV = ["--env_url", "http://127.0.0.1:8000", "--use_cpu"]
# Unlike every default, so a value that was not read from the run shows.
RUN_SAMPLED = ["--temperature", "0.7", "--top_p", "0.9", "--top_k", "7", "--max_completion_length", "3000"]
AS_THE_RUN = Sampling(temperature=0.7, top_p=0.9, top_k=7, max_new_tokens=3000)
PARTS = ["shared", "services/env", "services/scorer", "trainer", "studio", "demo", "deploy", "bench"]
# A sampling value written beside its name: `top_k=20`, `"max_tokens": 8192`, `"--top-p", type=float, default=0.95`.
NAMES = "top_p|top-p|top_k|top-k|max_new_tokens|max-new-tokens|max_tokens|temperature"
LITERAL = re.compile(rf"""({NAMES})[^#\n]{{0,30}}?[=:]\s*["']?[0-9]""")
OWN = {
    "shared/watercolour_shared/sampling.py",  # the home
    "shared/watercolour_shared/judge/chat_judge.py",  # the judge's own: temperature 0, a verdict's length
    "services/env/watercolour_env/critic.py",  # the VLM critic's own, as the judge's: temperature 0, a critique's length
    "services/scorer/watercolour_scorer/settings.py",  # HPSv3's score temperature, not sampling
    "demo/watercolour_demo/__main__.py",  # the demo's GRPO temperature, a choice of its own that its run records
}


def parsed(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers()
    add_eval_command(commands)
    add_trainer_commands(commands)
    return parser.parse_args(argv)


@pytest.fixture
def run_dir(tmp_path) -> Path:
    """A run as the trainer leaves it: run.json from the launch script's own plan, and a saved adapter."""
    lora = ["--use_peft", "--lora_target_modules", "all-linear"]
    run = config.parse(["--model_name_or_path", "base-model", *lora, *RUN_SAMPLED, *ENV])
    root = tmp_path / "run"
    RunWriter(root).write_plan(build_plan(run, root, run.env_url, {}))
    adapter = root / "adapter"
    adapter.mkdir()
    (adapter / "adapter_config.json").write_text(json.dumps({"base_model_name_or_path": "base-model"}))
    (adapter / "adapter_model.safetensors").write_bytes(b"")
    return root


def test_the_recipes_sample_as_the_shared_defaults():
    """The recipes' sampling and the defaults are the same numbers: a run parsed from the base recipe records them."""
    run = config.parse(["--config", str(BASE), *ENV])
    assert Sampling.of_config(run) == Sampling()


def test_the_trainer_records_how_the_run_sampled(run_dir):
    assert RunReader(run_dir).plan().sampling == AS_THE_RUN
    assert run_sampling(run_dir) == run_sampling(run_dir / "adapter") == (AS_THE_RUN, None)


def test_eval_of_a_run_directory_samples_as_the_run_sampled(run_dir, tmp_path):
    """No sampling flag: B, the run, samples as its run.json says; A, a model folder of no run, samples as B's run,
    so the two are compared alike. A flag given replaces its own field only."""
    args = parsed("eval", "--a", str(tmp_path / "warm"), "--b", str(run_dir), "--env-url", "http://127.0.0.1:1")
    samplings, notes = policy_samplings({"A": args.a, "B": args.b}, flags_of(args))
    assert samplings == {"A": AS_THE_RUN, "B": AS_THE_RUN} and notes == []
    policy = open_policy(args.b, samplings["B"])
    assert isinstance(policy, LocalPolicy) and policy.sampling == AS_THE_RUN and policy.adapter == str(run_dir / "adapter")

    args = parsed("eval", "--a", "x", "--b", str(run_dir), "--env-url", "u", "--max-new-tokens", "512", "--top-k", "0")
    samplings, _ = policy_samplings({"A": args.a, "B": args.b}, flags_of(args))
    assert samplings["B"] == AS_THE_RUN.model_copy(update={"max_new_tokens": 512, "top_k": 0})


def test_without_a_run_eval_samples_with_the_defaults(tmp_path):
    args = parsed("eval", "--a", str(tmp_path), "--b", "http://127.0.0.1:1#p", "--env-url", "u")
    assert policy_samplings({"A": args.a, "B": args.b}, flags_of(args)) == ({"A": Sampling(), "B": Sampling()}, [])


def test_an_older_run_reads_its_config_or_the_defaults_and_says_so(run_dir, tmp_path):
    plan = json.loads((run_dir / "run.json").read_text())
    del plan["sampling"]
    (run_dir / "run.json").write_text(json.dumps(plan))
    assert run_sampling(run_dir) == (AS_THE_RUN, "run.json records no sampling: read from its config")
    del plan["config"]
    (run_dir / "run.json").write_text(json.dumps(plan))
    assert run_sampling(run_dir) == (Sampling(), "run.json records no sampling: the defaults")
    _, notes = policy_samplings({"A": "x", "B": str(run_dir)}, {})
    assert notes == [f"B ({run_dir}): run.json records no sampling: the defaults"]


def test_an_endpoint_policy_sends_the_whole_sampling():
    with ScriptedServer([(200, chat(fenced("function setup() {}")), 0)]) as server:
        policy = EndpointPolicy(server.url, "served-policy", AS_THE_RUN, None)
        asyncio.run(policy.write("a pear", 0, 11))
        asyncio.run(policy.close())
    body = server.requests[0]["body"]
    assert (body["temperature"], body["top_p"], body["top_k"], body["max_tokens"], body["seed"]) == (0.7, 0.9, 7, 3000, 11)
    assert "top_k" not in Sampling(top_k=0).chat_fields()  # 0 is no top-k: not sent


def test_paint_samples_as_the_run_whose_adapter_paints(run_dir):
    from watercolour_trainer.paint_command import paint_sampling

    args = parsed("paint", "--model", "base-model", "--adapter", str(run_dir / "adapter"), "--env-url", "u")
    assert paint_sampling(args) == AS_THE_RUN
    args = parsed("paint", "--model", "base-model", "--env-url", "u", "--temperature", "0.5")
    assert paint_sampling(args) == Sampling(temperature=0.5)


def test_no_part_writes_a_sampling_value_of_its_own():
    sources = [path for part in PARTS for path in (ROOT / part).rglob("*.py") if ".venv" not in path.parts]
    holders = {str(path.relative_to(ROOT)) for path in sources if LITERAL.search(path.read_text(encoding="utf-8"))}
    assert holders == OWN, f"sampling written outside shared/watercolour_shared/sampling.py: {sorted(holders - OWN)}"

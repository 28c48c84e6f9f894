"""Several prompts a step, on the compiled static-cache path: a real three-step GRPO run of a tiny policy
against the real environment, two subjects, two groups a step. Each group is rendered for its own subject and
kept apart in the film and the metrics, and generation compiles in the first step only (asked for here on a
CPU, where it is off by default), through the LoRA and gradient checkpointing the recipe trains with: TRL
toggles checkpointing around each generation, which once recompiled every step."""

from __future__ import annotations

import pytest

from tests.trainer.conftest import run_trainer
from watercolour_shared.prompts import user_prompt
from watercolour_shared.run_dir import RunReader

SUBJECTS = ["a peach hibiscus", "a blue iris"]


@pytest.fixture(scope="module")
def run(tmp_path_factory, full_reward_env_url, tiny_policy):
    root = tmp_path_factory.mktemp("prompts-per-step")
    finished = run_trainer(
        "--env_url", full_reward_env_url, "--model_name_or_path", str(tiny_policy), "--subjects", *SUBJECTS[:2],
        "--prompts_per_step", "2", "--num_generations", "4", "--per_device_train_batch_size", "1",
        "--max_completion_length", "24", "--n_episodes", "8", "--max_steps", "3", "--compiled_generation", "true",
        "--use_peft", "--lora_target_modules", "all-linear", "--bf16", "false",
        "--report_to", "none", "--output_dir", str(root / "run"), home=root / "hf",
    )  # fmt: skip
    assert finished.returncode == 0, finished.stderr[-3000:]
    return RunReader(root / "run"), finished.stderr


def test_each_step_holds_its_groups_apart_each_with_its_own_subject(run):
    reader, _ = run
    assert reader.steps() == [1, 2, 3]
    for step in reader.steps():
        records = [rollout.record for rollout in reader.rollouts(step)]
        groups = {record.group for record in records}
        assert len(records) == 8 and len(groups) == 2
        for group in groups:
            prompts = {record.prompt for record in records if record.group == group}
            assert len(prompts) == 1 and prompts <= {user_prompt(subject) for subject in SUBJECTS}
    assert [(m.rollouts, m.groups) for m in reader.metrics()] == [(8, 2)] * 3
    assert reader.plan().subjects == SUBJECTS


def test_generation_compiles_in_the_first_step_only(run):
    reader, log = run
    compiled = [(m.compiled_graphs, m.timings.compile_s) for m in reader.metrics()]
    assert compiled[0][0] > 0 and compiled[0][1] > 0, compiled
    assert [graphs for graphs, _ in compiled[1:]] == [0, 0], compiled
    assert "graph(s) again" not in log

"""A real two-step GRPO run of a tiny policy against the real environment (offline judge, heuristic
scorer) through real HTTP, with a second replica that fails every batch: its share of step 1 is
dropped, and it sits out step 2, which the live replica scores whole. The run normalises each reward term
in its group before weighting it (GDPO, TRL's `normalize_then_sum`), so its drops go through the per-term path."""

from __future__ import annotations

import json
import statistics

import pytest
from PIL import Image

from tests.trainer.conftest import SHORT_RUN, half_dead_replica, run_trainer
from watercolour_shared.reward import MIX_TERMS
from watercolour_shared.run_dir import RunReader
from watercolour_trainer.model_loading import load_with_adapter


@pytest.fixture(scope="module")
def trained(tmp_path_factory, full_reward_env_url, tiny_policy) -> RunReader:
    replica = half_dead_replica(full_reward_env_url)
    root = tmp_path_factory.mktemp("run")
    try:
        finished = run_trainer(
            "--env_url", full_reward_env_url, replica.url, "--model_name_or_path", str(tiny_policy),
            "--use_peft", "--lora_target_modules", "all-linear", "--max_steps", "2", "--save_steps", "1", *SHORT_RUN,
            "--multi_objective_aggregation", "normalize_then_sum",
            "--output_dir", str(root / "run"), home=root / "hf",
        )  # fmt: skip
    finally:
        replica.stop()
    assert finished.returncode == 0, finished.stderr[-3000:]
    return RunReader(root / "run")


def test_every_rollout_is_in_the_film_with_its_evaluation(trained):
    assert trained.steps() == [1, 2]
    for step in (1, 2):
        rollouts = trained.rollouts(step)
        assert [r.record.index for r in rollouts] == [0, 1, 2, 3]
        for rollout in rollouts:
            assert rollout.js.read_text()
            assert rollout.record.prompt == "Paint a peach hibiscus in loose watercolour."


def test_the_failing_replica_drops_its_share_and_the_live_one_scores(trained):
    records = [rollout.record for rollout in trained.rollouts(1)]
    live, dead = records[:2], records[2:]
    for record in live:
        assert record.evaluation.reward.total == record.reward
        assert isinstance(record.reward, float)
    for record in dead:
        assert record.reward is None and record.evaluation is None
        assert "503" in record.dropped_reason or "replica going down" in record.dropped_reason


def test_the_failing_replica_sits_out_the_next_step(trained):
    assert all(isinstance(rollout.record.reward, float) for rollout in trained.rollouts(2))


def test_metrics_are_written_per_step(trained):
    lines = [json.loads(line) for line in trained.metrics_path.read_text().splitlines()]
    assert [m["step"] for m in lines] == [1, 2]
    assert [(metrics.rollouts, metrics.dropped) for metrics in trained.metrics()] == [(4, 2), (4, 0)]
    for metrics in trained.metrics():
        assert metrics.reward_mean is not None and 0.0 <= metrics.gate_pass_rate <= 1.0
        assert metrics.timings.generation_s > 0 and metrics.timings.training_s > 0


def test_each_term_is_its_own_reward_function_and_they_sum_to_the_environments_reward(trained):
    # One function per term (the environment asked once a batch: each rollout is once in the film, above), and
    # TRL's weighted sum of their values is the environment's mixed reward, the dropped rollouts left out whole.
    state = json.loads((trained.root / "checkpoints" / "checkpoint-2" / "trainer_state.json").read_text())
    logged = {entry["step"]: entry for entry in state["log_history"] if "reward" in entry}
    for step in (1, 2):
        scored = [rollout.record.reward for rollout in trained.rollouts(step) if rollout.record.reward is not None]
        assert {f"rewards/{term}/mean" for term in MIX_TERMS} <= set(logged[step]), sorted(logged[step])
        assert logged[step]["reward"] == pytest.approx(statistics.fmean(scored), abs=1e-5)


def test_trackio_recorded_the_run(trained):
    databases = list((trained.root.parent / "hf" / "trackio").glob("*.db"))
    assert databases, "trackio wrote no local database"


def test_the_adapter_loads_back_onto_its_base(trained, tiny_policy):
    model = load_with_adapter(str(tiny_policy), str(trained.adapter), bf16=False)
    assert any("lora_A" in name for name, _ in model.named_parameters())
    plan = json.loads((trained.root / "run.json").read_text())
    assert plan["lora"]["targets"] == "all-linear" and plan["weights"]["judge"] == 0.6


def test_paint_writes_paintings_through_the_environment(trained, tiny_policy, full_reward_env_url, tmp_path):
    from watercolour_shared.cli import main

    out = tmp_path / "paintings"
    code = main(
        ["paint", "--model", str(tiny_policy), "--adapter", str(trained.adapter), "--env-url", full_reward_env_url,
         "--count", "2", "--max-new-tokens", "32", "--out", str(out)]
    )  # fmt: skip
    assert code == 0
    for index in range(2):
        record = json.loads((out / f"painting-{index:02d}.json").read_text())
        assert record["render"]["status"] in {"passed", "failed"}
        assert (out / f"painting-{index:02d}.js").exists()
        png = out / f"painting-{index:02d}.png"
        if record["render"]["status"] == "passed":
            assert Image.open(png).size == (600, 600)

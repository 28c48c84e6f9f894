"""Before step 1 the script asks every environment's /ready for each term the run weighs, and names what is missing
as the environment explains it."""

from __future__ import annotations

import pytest

from tests.conftest import ROOT, TEST_DEADLINE_S
from tests.trainer.conftest import run_trainer
from watercolour_harness.processes import free_port
from watercolour_shared.reward import MixWeights
from watercolour_shared.timeouts import CLIENT_TIMEOUT_S, client_wait_s
from watercolour_trainer.config import parse
from watercolour_trainer.plan import measured_step_seconds
from watercolour_trainer.preflight import check_environments, client_wait

# TRL's defaults (bf16, micro-batches of 8) on a machine without a GPU: --use_cpu lets bf16 through.
ANY_RUN = ("--env_url", "http://e", "--model_name_or_path", "m", "--use_cpu")


def dry_run(*args: str):
    return run_trainer("--model_name_or_path", "unused", "--dry_run", "--use_cpu", *args)


def test_a_weighted_judge_that_is_not_configured_stops_the_run(server_url):
    finished = dry_run("--env_url", server_url, "--mix", "judge-led")
    assert finished.returncode == 2
    assert "the judge term carries weight 0.60 but is not configured" in finished.stderr and "HF_TOKEN" in finished.stderr
    assert "the hps term carries weight 0.30" in finished.stderr and "WATERCOLOUR_SCORER_URL" in finished.stderr


def test_the_user_can_start_anyway_and_is_warned(server_url):
    finished = dry_run("--env_url", server_url, "--mix", "judge-led", "--allow_missing_terms")
    assert finished.returncode == 0
    assert "continuing: --allow_missing_terms" in finished.stderr


def test_an_environment_that_does_not_answer_is_named(full_reward_env_url):
    dead = f"http://127.0.0.1:{free_port()}"
    finished = dry_run("--env_url", full_reward_env_url, dead)
    assert finished.returncode == 2
    assert f"{dead}: the environment does not answer /ready" in finished.stderr


def test_a_healthy_stack_prints_the_plan_and_its_cost(full_reward_env_url):
    finished = dry_run("--env_url", full_reward_env_url, "--mix", "hps-led", "--max_steps", "20", "--step_seconds", "360")
    assert finished.returncode == 0, finished.stderr
    assert "20 steps x 8 rollouts (1 prompt(s) x 8) over 1 environment replica(s)" in finished.stdout
    assert "about 2.0 h" in finished.stdout and "$10.00 trainer + $5.00 scorer Space" in finished.stdout
    assert '"judge": 0.3' in finished.stdout and '"hps": 0.6' in finished.stdout


def test_more_judge_references_than_the_pool_holds_stop_the_run(full_reward_env_url):
    """The trainer sets the references per rollout, the environment the tier mix and the pool: 16 references split
    love/okay evenly need 8 'okay' paintings, and the bundled pool has fewer. The default 4 fit."""
    finished = dry_run("--env_url", full_reward_env_url, "--mix", "hps-led", "--references", "16")
    assert finished.returncode == 2
    assert "16 judge references per rollout with the tier mix" in finished.stderr and "8 'okay'" in finished.stderr
    assert dry_run("--env_url", full_reward_env_url, "--mix", "hps-led").returncode == 0


def test_the_wait_for_a_group_is_what_the_environment_reports(server_url):
    """The env's /ready states the limits it runs with (the tests' render deadline is 30 s, not the default 60 s), and
    the trainer waits what they add up to, not a literal of its own."""
    readiness = check_environments([server_url], MixWeights(gate=0.5, length=0.5, judge=0, hps=0), False)
    limits = readiness[server_url].limits
    assert limits["render_deadline_s"] == TEST_DEADLINE_S
    expected = client_wait_s(limits["queue_timeout_s"], TEST_DEADLINE_S, limits["scorer_timeout_s"], limits["judge_timeout_s"])
    assert client_wait(readiness) == limits["client_wait_s"] == expected < CLIENT_TIMEOUT_S


def test_without_step_seconds_the_estimate_is_the_measured_h200_step():
    """68 s generating and training a group of 8 x 3072 tokens and 146 s for four (grpo-step-35b-h200-2026-12-03.json),
    and 8.35 s rendering and scoring each group beside the trainer (grpo-env-step-35b-h200-2026-12-03.json)."""
    measured = parse([*ANY_RUN, "--max_completion_length", "3072"])
    seconds, source = measured_step_seconds(measured)
    assert seconds == pytest.approx(68.0 + 8.35) and source.startswith("the measured H200 step with the environment")
    assert "micro-batches" not in source
    measured.prompts_per_step = 4
    assert measured_step_seconds(measured)[0] == pytest.approx(146.0 + 4 * 8.35)
    recipe = parse([*ANY_RUN, "--config", str(ROOT / "trainer" / "recipes" / "judge-led.yaml")])
    seconds, source = measured_step_seconds(recipe)  # 8192-token completions at most, micro-batches of 1
    assert seconds == pytest.approx((68.0 + 8.35) * 8192 / 3072) and "not this run's 1" in source

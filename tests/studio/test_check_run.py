"""`watercolour check-run`: the seven post-run checks, each failing for its own reason."""

import json
import shutil

import numpy as np
import pytest

from tests.shared.test_curve import write_curve
from tests.studio.conftest import watercolour
from tests.studio.film import BARE_PRIMITIVE, GOOD, REFUSAL, write_step
from watercolour_shared.prompts import user_prompt
from watercolour_shared.render_wire import Violation
from watercolour_shared.reward import PRESETS
from watercolour_shared.run_dir import FilmRollout, RolloutRecord, RunReader, RunWriter, StepMetrics, StepTimings
from watercolour_studio.checks.film_checks import reward_moves
from watercolour_studio.checks.held_out import held_out_curve
from watercolour_studio.checks.trend import linear_trend

CHECKS = [
    "environment rendered",
    "reward trends up",
    "groups differ",
    "artifacts exist",
    "paintings vary",
    "scoring Space paused",
    "held-out curve",
]


def write_adapter(run_dir):
    (run_dir / "adapter").mkdir()
    (run_dir / "adapter" / "adapter_config.json").write_text(json.dumps({"peft_type": "LORA", "r": 16}))
    (run_dir / "adapter" / "adapter_model.safetensors").write_bytes(b"\0" * 64)


def write_model(folder):
    """A whole model, as transformers saves one when every weight trained."""
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "qwen2"}))
    (folder / "model.safetensors").write_bytes(b"\0" * 64)


def check_run(run_dir, *flags):
    done = watercolour("check-run", str(run_dir), "--json", *flags)
    assert done.returncode in (0, 1), done.stderr
    checks = {check["name"]: check for check in json.loads(done.stdout)}
    assert list(checks) == CHECKS
    return done.returncode, checks


def test_a_finished_run_passes_every_check(film_copy):
    write_adapter(film_copy)
    code, checks = check_run(film_copy)
    assert code == 0
    assert [c["status"] for c in checks.values()] == ["pass", "pass", "pass", "pass", "pass", "skip", "skip"]
    assert checks["held-out curve"]["line"].startswith(f"no held-out curve (curve/curve.json): `watercolour curve {film_copy} ")
    metrics = RunReader(film_copy).metrics()
    slope = np.polyfit([row.step for row in metrics], [row.reward_mean for row in metrics], 1)[0]
    assert f"slope {slope:+.4f} per step" in checks["reward trends up"]["line"]
    assert "code opens for all 20 paintings" in checks["artifacts exist"]["evidence"]


def test_the_text_report_has_one_line_per_check(film_copy):
    write_adapter(film_copy)
    done = watercolour("check-run", str(film_copy))
    lines = [line for line in done.stdout.splitlines() if not line.startswith(" ")]
    assert done.returncode == 0
    assert [line.split(":")[0] for line in lines[:7]] == [
        f"{s}  {n}" for s, n in zip(["PASS"] * 5 + ["SKIP"] * 2, CHECKS, strict=True)
    ]
    assert lines[-1] == "all 7 checks passed"


async def test_a_group_with_all_equal_rewards_fails(film_copy, full_reward_env_url):
    write_adapter(film_copy)
    await write_step(full_reward_env_url, film_copy, 5, [[REFUSAL, BARE_PRIMITIVE, REFUSAL, BARE_PRIMITIVE], GOOD])
    code, checks = check_run(film_copy)
    assert code == 1
    assert checks["groups differ"]["status"] == "fail"
    assert checks["groups differ"]["evidence"] == ["step 5 group 0: 4 rewards all 0.000"]


def with_timeouts(run_dir, count):
    """Rollouts whose render ran past the deadline, as the environment reports them."""
    run = RunWriter(run_dir)
    failed = [r for r in run.all_rollouts() if r.png is None][:count]
    for rollout in failed:
        render = rollout.record.evaluation.render
        render.violations = [Violation(code="render_timeout", message="the sketch ran past 90 s")]
        run.record(rollout.record)


@pytest.mark.parametrize(("allowed", "status"), [("0.05", "fail"), ("0.1", "pass")])
def test_render_timeouts_beyond_the_threshold_fail(film_copy, allowed, status):
    with_timeouts(film_copy, 2)  # 2 of 32 rollouts: 6.25%
    _, checks = check_run(film_copy, "--max-timeouts", allowed)
    assert checks["environment rendered"]["status"] == status
    assert "2 render timeouts (6.2%)" in checks["environment rendered"]["evidence"]


def test_a_flat_reward_and_a_component_flat_at_zero_fail(film_copy):
    rows = RunReader(film_copy).metrics()
    (film_copy / "metrics.jsonl").unlink()
    for row, mean in zip(rows, [0.41, 0.52, 0.38, 0.50], strict=True):
        row.reward_mean, row.components["hps"] = mean, 0.0
        RunWriter(film_copy).append_metrics(row)
    _, checks = check_run(film_copy)
    trend = checks["reward trends up"]
    assert trend["status"] == "fail"
    assert trend["line"].endswith("flat at 0: hps")
    assert "hps: 0.000 to 0.000 over 4 steps" in trend["evidence"]


def with_means(run_dir, means):
    """The run's metrics with these mean rewards, one step each, the first step's components kept."""
    first = RunReader(run_dir).metrics()[0]
    (run_dir / "metrics.jsonl").unlink()
    for step, mean in enumerate(means, start=1):
        RunWriter(run_dir).append_metrics(first.model_copy(update={"step": step, "reward_mean": mean}))


def test_two_steps_are_too_few_for_a_trend(film_copy):
    lines = (film_copy / "metrics.jsonl").read_text().splitlines()
    (film_copy / "metrics.jsonl").write_text("\n".join(lines[:2]) + "\n")
    _, checks = check_run(film_copy)
    assert checks["reward trends up"]["status"] == "skip"
    assert checks["reward trends up"]["line"].startswith("2 steps with a mean reward: too few")


@pytest.mark.parametrize(
    ("means", "status"),
    [
        ([0.40, 0.55, 0.45], "skip"),  # interval across 0, 3 steps: too short to judge
        ([0.902, 0.576, 0.298], "skip"),  # falling in 3 steps, as three subjects' turns did in a real run
        ([0.40, 0.55, 0.45, 0.50, 0.42, 0.56, 0.44, 0.51, 0.43, 0.52], "fail"),  # 10 steps, no trend: not learning
        ([0.70, 0.65, 0.62, 0.58, 0.55, 0.50, 0.48, 0.44, 0.40, 0.37], "fail"),  # 10 steps going down
    ],
)
def test_a_short_run_is_skipped_unless_it_trends_up(film_copy, means, status):
    write_adapter(film_copy)
    with_means(film_copy, means)
    code, checks = check_run(film_copy)
    assert checks["reward trends up"]["status"] == status, checks["reward trends up"]
    assert code == (1 if status == "fail" else 0)


def subjects_film(cells: dict[tuple[int, str], list[float]]) -> list[FilmRollout]:
    """Scored rollouts of these (step, subject) cells, one per reward."""
    records = [
        RolloutRecord(
            step=step,
            index=i,
            group=0,
            prompt=user_prompt(subject),
            seed=i,
            reward=reward,
            dropped_reason=None,
            reply="",
            evaluation=None,
        )
        for (step, subject), rewards in cells.items()
        for i, reward in enumerate(rewards)
    ]
    return [FilmRollout(record, None, None) for record in records]


def test_the_trend_is_taken_within_subjects_when_a_run_paints_them_in_turn(film_copy):
    """An easy and a hard subject in turn, each rising: the step means zigzag, each subject climbs."""
    rewards = {(step, "a fern" if step % 2 else "a fox"): (0.8 if step % 2 else 0.3) + 0.01 * step for step in range(1, 13)}
    noisy = {cell: [reward - 0.004, reward + 0.004 * (cell[0] % 3)] for cell, reward in rewards.items()}
    with_means(film_copy, [float(np.mean(values)) for values in noisy.values()])
    metrics = RunReader(film_copy).metrics()
    over_steps = linear_trend([float(row.step) for row in metrics], [row.reward_mean for row in metrics])
    assert over_steps.low < 0 < over_steps.high  # the step means alone would call this run "not learning"

    check = reward_moves(metrics, subjects_film(noisy))
    assert check.status == "pass", check
    assert "per step within subjects" in check.line and "12 points" in check.line
    assert reward_moves(metrics, subjects_film({cell: values for cell, values in noisy.items() if cell[0] < 3})).status == "fail"


def test_a_painting_without_code_and_a_missing_adapter_fail(film_copy):
    (film_copy / "film" / "step-000002" / "rollout-00.js").unlink()
    _, checks = check_run(film_copy)
    artifacts = checks["artifacts exist"]
    assert artifacts["status"] == "fail"
    assert artifacts["line"] == "missing or unreadable: the adapter, every painting's code"
    assert "1 of 20 paintings have no readable code: step 2 rollout 0" in artifacts["evidence"]


@pytest.mark.parametrize("folder", ["model", "adapter"])  # adapter/: where runs saved a whole model before model/ existed
def test_a_run_that_trained_every_weight_passes_with_its_whole_model(film_copy, folder):
    plan = RunReader(film_copy).plan()
    RunWriter(film_copy).write_plan(plan.model_copy(update={"lora": None}))
    write_model(film_copy / folder)
    _, checks = check_run(film_copy)
    assert checks["artifacts exist"]["status"] == "pass"
    assert checks["artifacts exist"]["line"] == "the model, the rollouts dataset and every painting's code are there"
    assert f"model: {film_copy / folder}" in checks["artifacts exist"]["evidence"]


def test_the_weights_must_be_what_the_plan_trained(film_copy):
    write_model(film_copy / "model")  # the plan trained a LoRA adapter
    _, checks = check_run(film_copy)
    assert checks["artifacts exist"]["line"] == "missing or unreadable: the adapter"
    assert f"{film_copy / 'model'} holds the model, but the plan trained the adapter" in checks["artifacts exist"]["evidence"]


def test_an_unpushed_runs_rollouts_are_the_films_records(film_copy):
    write_adapter(film_copy)
    _, checks = check_run(film_copy)
    assert checks["artifacts exist"]["status"] == "pass"
    records = len(RunReader(film_copy).all_rollouts())
    assert f"rollouts: {records} records in {film_copy / 'film'} (not pushed)" in checks["artifacts exist"]["evidence"]
    shutil.rmtree(film_copy / "film")
    _, checks = check_run(film_copy)
    assert checks["artifacts exist"]["line"].startswith("missing or unreadable: the rollouts dataset")


def test_a_run_that_used_a_space_must_name_it(film_copy):
    plan = json.loads((film_copy / "run.json").read_text())
    plan["env_urls"] = ["https://tester-watercolour-env.hf.space"]
    (film_copy / "run.json").write_text(json.dumps(plan))
    _, checks = check_run(film_copy)
    assert checks["scoring Space paused"]["status"] == "fail"
    assert "--space OWNER/NAME" in checks["scoring Space paused"]["line"]


def test_an_empty_run_fails_and_a_missing_one_is_an_error(tmp_path):
    code, checks = check_run(tmp_path)
    assert code == 1
    assert checks["environment rendered"]["line"].startswith("0 of 0 rollouts rendered")
    missing = watercolour("check-run", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "is not a run directory" in missing.stderr


WHEN = "2026-12-06T03:00:00+00:00"


def metrics_only_run(run_dir, rewards: dict[int, float]):
    """A run directory as the trainer writes one, with these steps' mean rewards and no film (none is needed here)."""
    run = RunWriter(run_dir)
    run.write_plan({"model": "tiny", "subjects": ["a rose"], "weights": PRESETS["judge-led"], "lora": None, "push_to": None})
    timings = StepTimings(generation_s=1.0, render_s=1.0, scoring_s=1.0, training_s=1.0)
    for step, mean in rewards.items():
        row = StepMetrics(
            step=step,
            rollouts=8,
            dropped=0,
            reward_mean=mean,
            reward_std=0.1,
            components={"gate": 1.0},
            gate_pass_rate=1.0,
            violations={},
            below_0_3=0,
            groups=1,
            all_equal_groups=0,
            best=None,
            timings=timings,
            time=WHEN,
        )
        run.append_metrics(row)
    return run


# A reward that keeps rising over 1000 steps (a little noise on a slope of 3e-4 per step), logged every 50 steps.
RISING = {step: 0.40 + 0.0003 * step + (0.01 if step % 100 else -0.01) for step in range(50, 1001, 50)}
FLAT = {step: 0.55 + (0.01 if step % 100 else -0.01) for step in range(50, 1001, 50)}
# The public environment's held-out score (docs/evaluation.md): it peaked at step 500 and fell by step 1000.
PEAKED = {250: (0.30, 0.06), 500: (0.37, 0.06), 750: (0.31, 0.06), 1000: (0.263, 0.06)}
CLIMBED = {250: (0.55, 0.08), 500: (0.62, 0.08), 750: (0.70, 0.08), 1000: (0.76, 0.08)}


def test_a_reward_that_rises_while_the_held_out_curve_falls_fails_and_names_the_best_checkpoint(tmp_path):
    write_curve(metrics_only_run(tmp_path, RISING).root, PEAKED)
    code, checks = check_run(tmp_path)
    curve = checks["held-out curve"]
    assert code == 1 and curve["status"] == "fail", curve
    assert curve["line"] == (
        "the training reward rose while the held-out win rate fell (last checkpoints/checkpoint-1000 at 26% [20%, 32%], "
        "under the best): reward hacking; best checkpoint: checkpoints/checkpoint-500 (step 500, win rate 37% [31%, 43%])"
    )
    assert "step 500 checkpoints/checkpoint-500: win rate 37% [31%, 43%] (36 won, 60 lost, 0 tied)" in curve["evidence"]
    assert curve["evidence"][-1].startswith("training reward, steps 250-1000: slope +0.0003 per step")


def test_a_reward_and_a_held_out_curve_that_both_rise_pass(tmp_path):
    write_curve(metrics_only_run(tmp_path, RISING).root, CLIMBED)
    _, checks = check_run(tmp_path)
    curve = checks["held-out curve"]
    assert curve["status"] == "pass", curve
    assert curve["line"] == (
        "the held-out win rate rose to 76% [68%, 84%] at step 1000; "
        "best checkpoint: checkpoints/checkpoint-1000 (step 1000, win rate 76% [68%, 84%])"
    )


def test_a_run_without_a_curve_is_skipped_with_the_reason(tmp_path):
    run = metrics_only_run(tmp_path, RISING)
    check = held_out_curve(run, run.metrics(), [])
    assert check.status == "skip"
    assert check.line == (
        f"no held-out curve (curve/curve.json): `watercolour curve {run.root} --env-url URL` draws one, "
        "each saved checkpoint against the starting policy"
    )
    write_curve(run.root, {500: PEAKED[500]})
    check = held_out_curve(run, run.metrics(), [])
    assert check.status == "skip" and check.line.startswith("1 checkpoint(s) with a held-out win rate: at least 2")


@pytest.mark.parametrize(
    ("rewards", "points", "status", "said"),
    [
        # stalled: the last point's interval does not clear the first point's win rate, while the reward rose
        (RISING, {250: (0.60, 0.1), 500: (0.63, 0.1), 1000: (0.66, 0.1)}, "fail", "the held-out win rate stalled"),
        # the best point lies within the last one's interval: not a fall; the best is still named
        (RISING, {250: (0.50, 0.05), 500: (0.75, 0.1), 1000: (0.70, 0.1)}, "pass", "checkpoint-500 (step 500"),
        # it fell, but the reward did not rise over those steps either: not reward hacking, a warning
        (FLAT, PEAKED, "warn", "the reward did not rise over those steps either"),
    ],
)
def test_fell_or_stalled_is_read_against_the_curves_own_intervals(tmp_path, rewards, points, status, said):
    run = metrics_only_run(tmp_path, rewards)
    write_curve(run.root, points)
    check = held_out_curve(run, run.metrics(), [])
    assert check.status == status, check
    assert said in check.line


def test_a_curve_that_does_not_fit_its_record_fails_with_why(tmp_path):
    run = metrics_only_run(tmp_path, RISING)
    (tmp_path / "curve").mkdir()
    (tmp_path / "curve" / "curve.json").write_text(json.dumps({"version": 1, "points": 3}))
    check = held_out_curve(run, run.metrics(), [])
    assert check.status == "fail" and "curve.json does not fit the curve's record" in check.line

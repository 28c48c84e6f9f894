"""The held-out curve end to end (docs/evaluation.md, "Reading the curve"): a real two-step GRPO run of a tiny policy
saves a LoRA checkpoint at each step; `watercolour curve` evaluates each as `watercolour eval` does, against the run's
starting policy, through a real environment (offline judge, heuristic scorer) over HTTP; the gallery draws the curve
beside the reward, and says how to make one where a run has none."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.studio.conftest import served, watercolour
from tests.trainer.conftest import SHORT_RUN, run_trainer
from watercolour_shared.run_dir import RunReader
from watercolour_shared.run_dir.curve import Curve, curve_path, read_curve
from watercolour_shared.run_dir.evaluation import read_evaluation, replies_file

SUBJECTS = ("a blue iris", "a lighthouse on a cliff")


@pytest.fixture(scope="module")
def trained(tmp_path_factory, full_reward_env_url, tiny_policy) -> Path:
    """Two GRPO steps of the tiny policy, a checkpoint saved after each; no curve."""
    root = tmp_path_factory.mktemp("curve")
    finished = run_trainer(
        "--env_url", full_reward_env_url, "--model_name_or_path", str(tiny_policy), "--use_peft",
        "--lora_target_modules", "all-linear", "--max_steps", "2", "--save_steps", "1", "--report_to", "none",
        *SHORT_RUN, "--output_dir", str(root / "run"),
    )  # fmt: skip
    assert finished.returncode == 0, finished.stderr[-3000:]
    return root / "run"


@pytest.fixture(scope="module")
def subjects(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("subjects") / "held-out.txt"
    path.write_text("\n".join(SUBJECTS) + "\n")
    return path


def draw(run_dir: Path, env_url: str, subjects: Path, *flags: str) -> subprocess.CompletedProcess:
    """The command as the trainer runs it, with the fewest paintings that still make a point: one per subject."""
    return watercolour(
        "curve", str(run_dir), "--env-url", env_url, "--subjects", str(subjects), "--samples", "1", "--judge", "offline",
        "--quiet", *flags, timeout=600,
    )  # fmt: skip


@dataclass(frozen=True)
class Drawn:
    run: Path
    named: subprocess.CompletedProcess  # `--checkpoint checkpoint-2`, first
    after_named: Curve | None
    rest: subprocess.CompletedProcess  # then without --checkpoint


@pytest.fixture(scope="module")
def drawn(trained, full_reward_env_url, subjects, tmp_path_factory) -> Drawn:
    run = Path(shutil.copytree(trained, tmp_path_factory.mktemp("drawn") / "run"))
    named = draw(run, full_reward_env_url, subjects, "--checkpoint", "checkpoint-2")
    after_named = read_curve(run)
    return Drawn(run, named, after_named, draw(run, full_reward_env_url, subjects))


def test_a_named_checkpoint_then_every_other_one_becomes_a_point_against_the_starting_policy(drawn, tiny_policy):
    assert drawn.named.returncode == 0, drawn.named.stderr
    assert [point.checkpoint for point in drawn.after_named.points] == ["checkpoints/checkpoint-2"]
    assert drawn.rest.returncode == 0, drawn.rest.stderr
    assert "checkpoints/checkpoint-2: already on the curve" in drawn.rest.stdout
    curve = read_curve(drawn.run)
    assert [(point.step, point.checkpoint, point.eval) for point in curve.points] == [
        (1, "checkpoints/checkpoint-1", "curve/checkpoint-1"),
        (2, "checkpoints/checkpoint-2", "curve/checkpoint-2"),
    ]
    assert curve.points[1] == drawn.after_named.points[0]  # kept as it was, not evaluated again
    assert (curve.baseline, curve.samples, curve.judge, curve.subjects.count) == (str(tiny_policy), 1, "offline-judge", 2)
    plan = RunReader(drawn.run).plan()
    for point in curve.points:
        evaluation = read_evaluation(drawn.run / point.eval)
        assert evaluation.policies["B"].source == f"{tiny_policy} + {drawn.run / point.checkpoint}"
        assert evaluation.training_judge == plan.judge  # B is the run's policy, and says what trained it
        assert evaluation.head_to_head == point.head_to_head
        match = point.head_to_head
        assert match.wins + match.losses + match.ties + match.left_out == len(SUBJECTS)
    # The starting policy's replies are the same at every point: the point evaluated second took the first one's.
    a_replies = {replies_file(drawn.run / point.eval, "A").read_text() for point in curve.points}
    assert len(a_replies) == 1 and a_replies.pop().count("\n") == len(SUBJECTS)
    assert read_evaluation(drawn.run / "curve" / "checkpoint-1").seconds["write A"] == 0
    assert "best checkpoint: checkpoints/checkpoint-" in drawn.rest.stdout.splitlines()[-1]


def test_a_rerun_evaluates_nothing(drawn, full_reward_env_url, subjects):
    before = curve_path(drawn.run).read_bytes()
    again = draw(drawn.run, full_reward_env_url, subjects)
    assert again.returncode == 0, again.stderr
    assert again.stdout.count("already on the curve") == 2 and curve_path(drawn.run).read_bytes() == before


@pytest.mark.parametrize("problem", ["no run.json", "no checkpoint", "no such checkpoint", "measured otherwise", "other pairs"])
def test_what_cannot_be_drawn_is_one_line_and_exit_2(problem, drawn, full_reward_env_url, subjects, tmp_path):
    run, flags = tmp_path / "run", []
    if problem == "no run.json":
        run.mkdir()
    if problem == "no checkpoint":
        run.mkdir()
        shutil.copy(drawn.run / "run.json", run)
    if problem in ("no such checkpoint", "measured otherwise", "other pairs"):
        shutil.copytree(drawn.run, run)
        shutil.copytree(run / "checkpoints" / "checkpoint-2", run / "checkpoints" / "checkpoint-3")  # not on the curve
        asked = {"no such checkpoint": ["--checkpoint", "checkpoint-9"], "measured otherwise": ["--samples", "2"]}
        flags = asked.get(problem, ["--pairs", "all"])
    before = curve_path(run).read_bytes() if curve_path(run).exists() else None
    done = draw(run, full_reward_env_url, subjects, *flags)
    after = curve_path(run).read_bytes() if curve_path(run).exists() else None
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and lines[0].startswith("watercolour curve: "), done.stderr
    expected = {
        "no run.json": "no readable run.json",
        "no checkpoint": "no saved checkpoint in checkpoints/",
        "no such checkpoint": "no saved checkpoint checkpoint-9",
        "measured otherwise": "(samples differ): start a new curve",
        "other pairs": "(pairs differ): start a new curve",
    }[problem]
    assert expected in lines[0]
    assert after == before and not (run / "curve" / "checkpoint-3").exists()  # refused before any evaluation


async def test_the_gallery_draws_the_curve_beside_the_reward(page, drawn):
    curve = read_curve(drawn.run)
    best = max(curve.points, key=lambda point: point.head_to_head.win_rate.mean)  # the earliest of equals
    with served("gallery", str(drawn.run), "--port", "0") as url:
        await page.goto(f"{url}/#/curves")
        await page.wait_for_selector("#chart-held-out [data-series] circle")
        charts = await page.eval_on_selector_all(".charts > figure", "figures => figures.map(f => f.id)")
        dots = page.locator("#chart-held-out [data-series] circle")
        assert charts[:2] == ["chart-reward", "chart-held-out"]
        assert await dots.count() == len(curve.points)
        assert await page.locator("#chart-held-out .intervals line").count() == len(curve.points)
        assert "50%: the starting policy" in await page.locator("#chart-held-out .rule").text_content()
        ring = page.locator("#chart-held-out circle.mark")
        assert (await ring.text_content()).startswith(f"best checkpoint: {best.checkpoint} (step {best.step}, win rate")
        at = [point.step for point in curve.points].index(best.step)
        assert await ring.get_attribute("cx") == await dots.nth(at).get_attribute("cx")
        assert await page.locator("#held-out-missing").count() == 0


async def test_a_run_without_a_curve_shows_the_reward_and_how_to_make_one(page, trained):
    with served("gallery", str(trained), "--port", "0") as url:
        await page.goto(f"{url}/#/curves")
        await page.wait_for_selector("#chart-reward circle")
        assert await page.locator("#chart-held-out").count() == 0
        assert f"`watercolour curve {trained} --env-url URL` draws one" in await page.inner_text("#held-out-missing")

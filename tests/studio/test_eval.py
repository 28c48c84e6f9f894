"""`watercolour eval` end to end, as a user runs it: a real process, a real environment (offline judge,
heuristic scorer), a tiny local policy built here, and OpenAI-compatible endpoints served on loopback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.studio.conftest import PAINTINGS, chat, fenced, watercolour
from tests.studio.conftest import SUBJECT as FILM_SUBJECT
from watercolour_harness.scripted_http import ScriptedServer
from watercolour_shared.judge.offline import wash_quality
from watercolour_shared.reward import DEFAULT_MIX, preset
from watercolour_shared.run_dir import RunWriter
from watercolour_shared.run_dir.evaluation import read_evaluation
from watercolour_shared.subjects import DEFAULT_SUBJECT

SUBJECTS = ["a blue iris", "a pear and its shadow", "a lighthouse on a cliff"]
SAMPLES = 2
UNAVAILABLE = (503, {"error": "overloaded"}, 0)


@pytest.fixture
def subjects(tmp_path) -> Path:
    path = tmp_path / "subjects.txt"
    path.write_text("# three held-out subjects\n" + "\n".join(SUBJECTS) + "\n")
    return path


def answers(codes: list[str], count: int) -> list[tuple]:
    return [(200, chat(fenced(codes[i % len(codes)])), 0) for i in range(count)]


def run_eval(a: str, b: str, env_url: str, subjects: Path, out: Path, *flags: str):
    return watercolour(
        "eval", "--a", a, "--b", b, "--env-url", env_url, "--subjects", str(subjects), "--samples", str(SAMPLES),
        "--judge", "offline", "--out", str(out), "--max-new-tokens", "24", "--quiet", *flags, timeout=900,
    )  # fmt: skip


async def test_a_policy_that_paints_beats_one_that_cannot_and_a_rerun_resumes(
    tiny_policy, full_reward_env_url, subjects, tmp_path, page
):
    out = tmp_path / "eval"
    with ScriptedServer(answers(PAINTINGS, 12)) as model:
        first = run_eval(str(tiny_policy), f"{model.url}#painter", full_reward_env_url, subjects, out, "--expect-better")
        asked, measured = len(model.requests), json.loads((out / "eval.json").read_text())
        again = run_eval(str(tiny_policy), f"{model.url}#painter", full_reward_env_url, subjects, out, "--expect-better")
    assert first.returncode == 0, first.stderr
    assert again.returncode == 0 and len(model.requests) == asked == len(SUBJECTS) * SAMPLES  # nothing asked twice
    evaluation = read_evaluation(out)
    a, b, match = evaluation.policies["A"], evaluation.policies["B"], evaluation.head_to_head
    assert a.gate_pass_rate.mean == 0 and b.gate_pass_rate.mean == 1, (a, b)
    assert a.violations and sum(a.violations.values()) >= a.paintings == len(SUBJECTS) * SAMPLES
    assert match.wins == len(SUBJECTS) * SAMPLES and match.win_rate.low == 1.0 and match.better
    assert b.hps.mean is not None and b.hps_scorer == "heuristic" and b.judge.mean is not None and b.length_chars.mean > 100
    assert evaluation.subjects.count == 3 and evaluation.subjects.name == "subjects" and evaluation.judge == "offline-judge"
    assert "win rate 100% [100%, 100%]" in first.stdout
    rerun = json.loads((out / "eval.json").read_text())
    assert rerun["head_to_head"] == measured["head_to_head"] and rerun["policies"] == measured["policies"]
    await page.goto((out / "index.html").as_uri())
    assert await page.locator("section.subject").count() == len(SUBJECTS)
    widths = await page.eval_on_selector_all("img", "images => images.map(image => image.naturalWidth)")
    assert len(widths) == len(SUBJECTS) * SAMPLES and all(width == 600 for width in widths)
    assert "heuristic" in await page.inner_text("body")


async def test_a_policy_against_itself_ties_and_a_lost_answer_is_left_out_not_lost(full_reward_env_url, subjects, tmp_path):
    """Both policies send the same sketches: the offline judge rates equal paintings equal, so each order picks the
    painting shown first and the orders disagree: a tie. One of B's answers never comes (503 past the retries)."""
    codes = [PAINTINGS[0], PAINTINGS[3]]
    script_b = answers(codes, 1) + [UNAVAILABLE] * 3 + answers(codes, 6)[2:]  # B's second painting never comes
    with ScriptedServer(answers(codes, 6)) as model_a, ScriptedServer(script_b) as model_b:
        done = run_eval(
            f"{model_a.url}#a", f"{model_b.url}#b", full_reward_env_url, subjects, tmp_path / "eval", "--expect-better"
        )
    assert done.returncode == 1, done.stderr  # not better: --expect-better fails
    evaluation = read_evaluation(tmp_path / "eval")
    match = evaluation.head_to_head
    assert (match.left_out, match.wins, match.losses, match.ties) == (1, 0, 0, len(SUBJECTS) * SAMPLES - 1)
    assert match.win_rate.mean == 0.5 and not match.better and evaluation.policies["B"].unavailable == 1
    judged = [m for row in evaluation.rows for m in row.matches if m.outcome == "tie"]
    assert all(m.a_first.winner == "A" and m.b_first.winner == "A" for m in judged)  # the painting shown first, both times
    row = evaluation.rows[0]
    qualities = [wash_quality((tmp_path / "eval" / p.png).read_bytes()) for p in row.a]
    assert f"{qualities[0]:.3f}" in row.matches[0].a_first.reason
    assert any("left out" in warning for warning in evaluation.warnings)


@pytest.mark.parametrize(
    "problem",
    ["missing model", "silent endpoint", "repeated subject", "training subject", "endpoint without model"],
)
def test_bad_input_gets_one_line_and_exit_2(problem, full_reward_env_url, subjects, tmp_path):
    a = b = str(tmp_path / "no-such-model")
    if problem != "missing model":
        a = b = "http://127.0.0.1:9/v1#policy" if problem != "endpoint without model" else "http://127.0.0.1:9/v1"
    if problem == "repeated subject":
        subjects.write_text(f"{SUBJECTS[0]}\n{SUBJECTS[1]}\n{SUBJECTS[0].upper()}\n")
    if problem == "training subject":
        subjects.write_text(f"{SUBJECTS[0]}\n{DEFAULT_SUBJECT}\n")
    with ScriptedServer(answers(PAINTINGS, 1)) as model:
        if problem in ("repeated subject", "training subject"):
            a = b = f"{model.url}#painter"
        done = run_eval(a, b, full_reward_env_url, subjects, tmp_path / "eval")
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("watercolour eval: ") and "Traceback" not in done.stderr, done.stderr
    expected = {
        "missing model": "no such model",
        "silent endpoint": "does not answer",
        "repeated subject": "repeated",
        "training subject": "not held out",
        "endpoint without model": "name the served model",
    }[problem]
    assert expected in lines[0]


def test_a_run_directory_paints_with_its_weights_and_says_what_trained_it(tiny_policy, full_reward_env_url, subjects, tmp_path):
    """B is a run directory: its saved model paints, its plan's subjects are not held out, and its plan's judge is
    this eval's judge, which eval warns about. With no --out, the eval lands in the run's eval/."""
    run = tmp_path / "run"
    shutil.copytree(tiny_policy, run / "model")
    weights = preset(DEFAULT_MIX).model_dump()
    plan = {"model": "tiny", "subjects": [SUBJECTS[1]], "weights": weights, "lora": None, "push_to": None}
    plan["judge"] = "offline-judge"
    RunWriter(run).write_plan(plan)
    with ScriptedServer(answers(PAINTINGS, 12)) as model:
        refused = run_eval(f"{model.url}#painter", str(run), full_reward_env_url, subjects, tmp_path / "refused")
        subjects.write_text(f"{SUBJECTS[0]}\n{SUBJECTS[2]}\n")
        done = watercolour(
            "eval", "--a", f"{model.url}#painter", "--b", str(run), "--env-url", full_reward_env_url, "--subjects",
            str(subjects), "--samples", "1", "--judge", "offline", "--max-new-tokens", "16", "--quiet",
        )  # fmt: skip
    assert refused.returncode == 2 and f"not held out: {SUBJECTS[1]}" in refused.stderr, refused.stderr
    assert done.returncode == 0, done.stderr
    evaluation = read_evaluation(run / "eval")
    assert evaluation.same_judge and evaluation.training_judge == "offline-judge"
    assert evaluation.policies["B"].source == str(run / "model") and evaluation.head_to_head.losses == 2
    assert any("--judge a held-out one" in warning for warning in evaluation.warnings), evaluation.warnings
    assert "warning: B was trained by offline-judge" in done.stdout


def test_a_runs_own_paintings_compare_step_against_step_and_say_they_are_not_held_out(film, full_reward_env_url, tmp_path):
    """The film's step 1 has one real sketch in each group of four (the rest fail the gate), step 4 only real ones:
    sample k is the k-th rollout of the subject at that step. Sample 0 is the same sketch at both steps: a tie."""
    flags = ("--env-url", full_reward_env_url, "--samples", "4", "--judge", "offline", "--quiet")
    done = watercolour("eval", "--a", f"{film}@1", "--b", f"{film}@4", "--out", str(tmp_path / "eval"), *flags)
    assert done.returncode == 0, done.stderr
    evaluation = read_evaluation(tmp_path / "eval")
    assert [row.subject for row in evaluation.rows] == [FILM_SUBJECT]
    a, b, match = evaluation.policies["A"], evaluation.policies["B"], evaluation.head_to_head
    assert (a.gate_pass_rate.mean, b.gate_pass_rate.mean) == (0.25, 1.0)
    assert (match.wins, match.losses, match.ties, match.left_out) == (3, 0, 1, 0)
    assert any("not held out" in warning for warning in evaluation.warnings)
    missing = watercolour("eval", "--a", f"{film}@9", "--b", f"{film}@4", "--out", str(tmp_path / "none"), *flags)
    assert missing.returncode == 2 and "the film holds no step 9" in missing.stderr, missing.stderr


def test_all_pairs_judge_each_a_painting_against_each_b_painting_from_the_same_renders(film, full_reward_env_url, tmp_path):
    """The film's step 1 against step 4, matched pairs then all pairs into one folder: all pairs judge the same
    paintings, their diagonal is the matched comparisons, and each of step 1's three paintings that failed the gate
    loses to each of step 4's four."""
    out, flags = tmp_path / "eval", ("--env-url", full_reward_env_url, "--samples", "4", "--judge", "offline", "--quiet")
    matched = watercolour("eval", "--a", f"{film}@1", "--b", f"{film}@4", "--out", str(out), *flags)
    first = read_evaluation(out)
    painted = {p.png: (out / p.png).read_bytes() for row in first.rows for p in row.a + row.b if p.png}
    crossed = watercolour("eval", "--a", f"{film}@1", "--b", f"{film}@4", "--out", str(out), "--pairs", "all", *flags)
    assert matched.returncode == crossed.returncode == 0, matched.stderr + crossed.stderr
    evaluation = read_evaluation(out)
    [row], match = evaluation.rows, evaluation.head_to_head
    assert evaluation.pairs == "all"
    assert [(m.sample, m.b_sample) for m in row.matches] == [(i, j) for i in range(4) for j in range(4)]
    assert [m for m in row.matches if m.sample == m.b_sample] == first.rows[0].matches
    assert {p.png: (out / p.png).read_bytes() for p in row.a + row.b if p.png} == painted
    failed = [p.sample for p in row.a if p.status == "failed"]
    assert len(failed) == 3 and all(m.outcome == "win" for m in row.matches if m.sample in failed)
    assert match.wins + match.losses + match.ties == 16 and match.win_rate.n == 16
    assert "B against A (all pairs): win rate" in crossed.stdout and "(matched pairs)" in matched.stdout

"""`--pairs`: which of a subject's paintings the judge compares (docs/evaluation.md, "Pairs"). Real PNGs judged by the
offline judge, no browser: under all pairs every A painting meets every B painting of its subject, each comparison
names both samples, the head-to-head counts comparisons and its interval still resamples subjects; an eval.json from
before reads as matched, and the page names a cross pair."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from tests.pictures import hard_blob, soft_wash
from tests.studio.test_eval_page import evaluation as page_evaluation
from watercolour_shared.judge.offline import OfflineJudge
from watercolour_shared.run_dir.evaluation import Painting, SubjectRow, read_evaluation
from watercolour_studio.eval.command import add_eval_command
from watercolour_studio.eval.curve_command import add_curve_command
from watercolour_studio.eval.head_to_head import HeadToHead, pairings
from watercolour_studio.eval.page import render_page
from watercolour_studio.eval.summary import head_to_head

GOOD, POOR = soft_wash(), hard_blob()  # the offline judge prefers the soft washes, well past its margin


def paintings(folder: Path, label: str, looks: str) -> list[Painting]:
    """One painting a letter: g (soft washes), p (a hard blob), x (no answer came: left out)."""
    made = []
    for sample, look in enumerate(looks):
        png = Path(f"{label}-{sample}-{look}.png")
        if look == "x":
            made.append(Painting(sample=sample, seed=sample, status="unavailable", js="none.js", failure="HTTP 503"))
            continue
        (folder / png).write_bytes(GOOD if look == "g" else POOR)
        made.append(Painting(sample=sample, seed=sample, status="passed", png=str(png), js="code.js"))
    return made


def expected(a: str, b: str, i: int, j: int) -> str:
    if "x" in (a[i], b[j]):
        return "left-out"
    return {("p", "g"): "win", ("g", "p"): "loss"}.get((a[i], b[j]), "tie")


async def judged(folder: Path, a: str, b: str, pairs: str) -> SubjectRow:
    painted_a, painted_b = paintings(folder, "A", a), paintings(folder, "B", b)
    judge = HeadToHead(OfflineJudge(), None, folder)
    matches = [await judge.match(pa, pb) for pa, pb in pairings(painted_a, painted_b, pairs)]
    return SubjectRow(subject=f"{a} against {b}", a=painted_a, b=painted_b, matches=matches)


async def test_all_pairs_judge_every_a_painting_against_every_b_painting_of_the_subject(tmp_path):
    a, b = "pgp", "ggp"
    row = await judged(tmp_path, a, b, "all")
    assert [(m.sample, m.b_sample) for m in row.matches] == [(i, j) for i in range(3) for j in range(3)]
    assert [m.outcome for m in row.matches] == [expected(a, b, m.sample, m.b_sample) for m in row.matches]
    assert all(m.a_first and m.b_first for m in row.matches)  # each judged in both orders
    matched = await judged(tmp_path, a, b, "matched")
    assert [(m.sample, m.b_sample, m.outcome) for m in matched.matches] == [(0, 0, "win"), (1, 1, "tie"), (2, 2, "tie")]


async def test_a_missing_painting_leaves_out_every_comparison_it_is_in(tmp_path):
    row = await judged(tmp_path, "gpg", "gpx", "all")
    left_out = [(m.sample, m.b_sample) for m in row.matches if m.outcome == "left-out"]
    assert left_out == [(0, 2), (1, 2), (2, 2)] and all(m.why == "HTTP 503" for m in row.matches if m.outcome == "left-out")
    match = head_to_head([row])
    assert (match.wins, match.losses, match.ties, match.left_out, match.win_rate.n) == (1, 2, 3, 3, 6)


async def test_the_head_to_head_counts_comparisons_and_resamples_subjects_not_comparisons(tmp_path):
    """One subject B wins in all nine comparisons, one it loses in all nine: 18 comparisons, but two subjects, so the
    interval spans both (over comparisons it would sit near 50%)."""
    rows = []
    for name, (a, b) in {"won": ("ppp", "ggg"), "lost": ("ggg", "ppp")}.items():
        folder = tmp_path / name
        folder.mkdir()
        rows.append(await judged(folder, a, b, "all"))
    match = head_to_head(rows)
    assert (match.wins, match.losses, match.ties, match.win_rate.n, match.win_rate.mean) == (9, 9, 0, 18, 0.5)
    assert (match.win_rate.low, match.win_rate.high) == (0.0, 1.0) and not match.better


def test_an_eval_json_from_before_pairs_reads_as_matched(tmp_path):
    written = json.loads(page_evaluation(tmp_path).model_dump_json())
    del written["pairs"]
    for row in written["rows"]:
        for match in row["matches"]:
            del match["b_sample"]
    (tmp_path / "eval.json").write_text(json.dumps(written))
    read = read_evaluation(tmp_path)
    assert read.pairs == "matched"
    assert all(m.b_sample == m.sample for row in read.rows for m in row.matches) and read.rows[0].matches[1].sample == 1


def test_the_page_names_a_cross_pair_by_both_samples_and_says_what_a_comparison_is(tmp_path):
    evaluation = page_evaluation(tmp_path)
    crossed = evaluation.rows[0].matches[1].model_copy(update={"sample": 0, "b_sample": 1})
    evaluation.rows[0].matches[1] = crossed
    html = render_page(evaluation.model_copy(update={"pairs": "all"}))
    assert '<span class="pair">A sample 0 vs B sample 1</span>' in html
    assert '<span class="pair">sample 0</span>' in html  # a matched pair keeps its one sample
    assert 'data-pairs="all">all: every A painting against every B painting' in html


@pytest.mark.parametrize("add_command", [add_eval_command, add_curve_command])
def test_eval_and_curve_take_pairs_matched_by_default(add_command):
    parser = argparse.ArgumentParser()
    add_command(parser.add_subparsers(dest="command"))
    name = "eval" if add_command is add_eval_command else "curve"
    given = ["--a", "x", "--b", "y"] if name == "eval" else ["run"]
    assert parser.parse_args([name, *given, "--env-url", "u"]).pairs == "matched"
    assert parser.parse_args([name, *given, "--env-url", "u", "--pairs", "all"]).pairs == "all"
    with pytest.raises(SystemExit):
        parser.parse_args([name, *given, "--env-url", "u", "--pairs", "some"])

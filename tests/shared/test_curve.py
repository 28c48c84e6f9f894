"""The held-out curve's record (`curve/curve.json`, shared/watercolour_shared/run_dir/curve.py): one writer adds an
evaluation of a checkpoint as a point, one reader reads it back; a point measured otherwise is refused, and
docs/run-directory.md's example names exactly the record's fields."""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import ROOT
from watercolour_shared.run_dir import RECORDS
from watercolour_shared.run_dir.curve import Curve, CurvePoint, append_point, curve_path, read_curve
from watercolour_shared.run_dir.evaluation import Evaluation, HeadToHead, Interval, PolicySummary, SubjectSetInfo

DOC = ROOT / "docs" / "run-directory.md"
NOTHING = Interval(mean=None, low=None, high=None, n=0)
HELD_OUT = SubjectSetInfo(name="eval-subjects-v1.txt", sha256="ab" * 32, count=24)


def _policy(label: str, source: str) -> PolicySummary:
    names = ("gate_pass_rate", "length_chars", "length_term", "hps", "judge", "diversity", "distinct_code")
    unmeasured = dict.fromkeys(names, NOTHING)
    return PolicySummary(label=label, source=source, paintings=96, unavailable=0, violations={}, hps_scorer=None, **unmeasured)


def checkpoint_eval(win_rate: float, margin: float, checkpoint: str, baseline: str = "Qwen/base", **changed) -> Evaluation:
    """An eval.json of `checkpoint` (B) against `baseline` (A) whose head-to-head is this win rate, +- margin."""
    rate = Interval(mean=win_rate, low=max(0.0, win_rate - margin), high=min(1.0, win_rate + margin), n=24)
    wins = round(96 * win_rate)
    match = HeadToHead(win_rate=rate, wins=wins, losses=96 - wins, ties=0, left_out=0, tie_share=0.0, better=rate.low > 0.5)
    fields = {"subjects": HELD_OUT, "samples": 4, "seed": 0, "judge": "router:Qwen/judge"} | changed
    return Evaluation(
        created="2026-12-06T03:00:00+00:00",
        training_judge=None,
        same_judge=False,
        policies={"A": _policy("A", baseline), "B": _policy("B", checkpoint)},
        head_to_head=match,
        diversity_ratio=None,
        rows=[],
        **fields,
    )


def write_curve(run_dir, points: dict[int, tuple[float, float]]) -> Curve:
    """A curve of these steps' checkpoints: step -> (win rate, half-width of its interval)."""
    curve = None
    for step, (rate, margin) in points.items():
        checkpoint = f"checkpoints/checkpoint-{step}"
        curve = append_point(run_dir, checkpoint_eval(rate, margin, checkpoint), step, checkpoint)
    return curve


def test_each_evaluation_of_a_checkpoint_is_a_point_read_back_in_step_order(tmp_path):
    later = checkpoint_eval(0.6, 0.1, "checkpoints/checkpoint-200")
    append_point(tmp_path, later, 200, "checkpoints/checkpoint-200", tmp_path / "curve" / "checkpoint-200")
    append_point(tmp_path, checkpoint_eval(0.55, 0.1, "checkpoints/checkpoint-100"), 100, "checkpoints/checkpoint-100")
    curve = read_curve(tmp_path)
    assert [(p.step, p.checkpoint, p.eval) for p in curve.points] == [
        (100, "checkpoints/checkpoint-100", None),
        (200, "checkpoints/checkpoint-200", "curve/checkpoint-200"),
    ]
    assert curve.points[1].head_to_head == later.head_to_head
    assert (curve.baseline, curve.subjects, curve.samples, curve.judge) == ("Qwen/base", HELD_OUT, 4, "router:Qwen/judge")


def test_a_step_evaluated_again_replaces_its_point(tmp_path):
    write_curve(tmp_path, {100: (0.55, 0.1), 200: (0.6, 0.1)})
    append_point(tmp_path, checkpoint_eval(0.7, 0.1, "again"), 200, "checkpoints/checkpoint-200")
    assert [(p.step, p.head_to_head.win_rate.mean) for p in read_curve(tmp_path).points] == [(100, 0.55), (200, 0.7)]


@pytest.mark.parametrize(
    ("changed", "named"),
    [
        ({"baseline": "Qwen/other"}, "baseline"),
        ({"judge": "offline"}, "judge"),
        ({"samples": 2}, "samples"),
        ({"pairs": "all"}, "pairs"),
    ],
)
def test_a_point_measured_otherwise_is_refused(tmp_path, changed, named):
    write_curve(tmp_path, {100: (0.55, 0.1)})
    with pytest.raises(ValueError, match=f"{named} differ"):
        other = checkpoint_eval(0.6, 0.1, "checkpoints/checkpoint-200", **changed)
        append_point(tmp_path, other, 200, "checkpoints/checkpoint-200")
    assert len(read_curve(tmp_path).points) == 1


def test_a_curve_from_before_pairs_reads_as_matched_and_takes_no_point_of_all_pairs(tmp_path):
    write_curve(tmp_path, {100: (0.55, 0.1)})
    written = json.loads(curve_path(tmp_path).read_text())
    del written["pairs"]
    curve_path(tmp_path).write_text(json.dumps(written))
    assert read_curve(tmp_path).pairs == "matched"
    append_point(tmp_path, checkpoint_eval(0.6, 0.1, "checkpoints/checkpoint-200"), 200, "checkpoints/checkpoint-200")
    with pytest.raises(ValueError, match="pairs differ"):
        crossed = checkpoint_eval(0.7, 0.05, "checkpoints/checkpoint-300", pairs="all")
        append_point(tmp_path, crossed, 300, "checkpoints/checkpoint-300")
    assert [point.step for point in read_curve(tmp_path).points] == [100, 200]


def test_a_run_without_a_curve_reads_none_and_the_curve_goes_to_the_hub(tmp_path):
    assert read_curve(tmp_path) is None
    assert "curve/curve.json" in RECORDS


def test_the_documented_curve_names_exactly_the_records_fields():
    [example] = re.findall(r"## The held-out curve.*?```json\n(.*?)```", DOC.read_text(), re.S)
    written = json.loads(re.sub(r"//.*", "", example))
    assert list(written) == list(Curve.model_fields)
    assert list(written["points"][0]) == list(CurvePoint.model_fields)
    Curve.model_validate(written)

"""The diversity measure on real renders: near-copies of a painting sit below every pair of different paintings,
and `check-run`'s "paintings vary" warns when a film's groups collapse into one painting.

Measured (SwiftShader Chromium, these seeds): near-copies 0.000 to 0.211 (two-washes under seeds 1 and 2 is the
widest: the seed changes how deep its washes go), different paintings 0.257 to 0.485 (the closest: the two peach
hibiscus sketches, one palette in two layouts).
"""

from __future__ import annotations

import asyncio
import base64
import itertools

import pytest

from tests.conftest import sketch
from watercolour_harness.sketchgen.generate import generate_sketch
from watercolour_shared.prompts import user_prompt
from watercolour_shared.render_wire import Evaluation, RenderResult, RewardBreakdown
from watercolour_shared.reward import preset
from watercolour_shared.run_dir import RolloutRecord, RunReader, RunWriter
from watercolour_studio.checks.film_checks import paintings_vary
from watercolour_studio.checks.report import format_checks
from watercolour_studio.eval.diversity import COLLAPSE_SHARE, brush_sequence, distance, distinct_share, embed, spread

NEAR_COPIES = 0.23  # above every near-copy measured (0.211), below every different pair (0.257)
WASHES, BLOOM = sketch("two-washes.js"), sketch("peach-bloom-small.js")
# family -> paintings: (code, seed). Within a family, near-copies: another seed, or one colour nudged a little.
FAMILIES = {
    "two washes": [(WASHES, 1), (WASHES, 2), (WASHES.replace("#b83b5e", "#c0405e"), 1)],
    "small bloom": [(BLOOM, 1), (BLOOM, 2), (BLOOM.replace("#f58d62", "#f0925a"), 1)],
    "hibiscus a": [(sketch("peach-hibiscus-a.js"), 1)],
    "hibiscus b": [(sketch("peach-hibiscus-b.js"), 1)],
    "violet rose 0": [(generate_sketch("a violet rose", 0), 1)],
    "violet rose 1": [(generate_sketch("a violet rose", 1), 1)],
    "green leaves": [(generate_sketch("green leaves", 0), 1)],
}


@pytest.fixture(scope="module")
async def paintings(renderer) -> dict[str, list[bytes]]:
    async def paint(code: str, seed: int) -> bytes:
        result = await renderer.render(code, seed=seed)
        assert result.status == "passed", result.violations
        return base64.b64decode(result.png_base64)

    jobs = [(family, paint(code, seed)) for family, found in FAMILIES.items() for code, seed in found]
    pngs = await asyncio.gather(*(job for _, job in jobs))
    painted: dict[str, list[bytes]] = {family: [] for family in FAMILIES}
    for (family, _), png in zip(jobs, pngs, strict=True):
        painted[family].append(png)
    return painted


def test_near_copies_sit_below_every_different_pair(paintings):
    vectors = {family: [embed(png) for png in pngs] for family, pngs in paintings.items()}
    near = [distance(a, b) for found in vectors.values() for a, b in itertools.combinations(found, 2)]
    different = [
        distance(a, b) for one, other in itertools.combinations(vectors, 2) for a in vectors[one] for b in vectors[other]
    ]
    assert len(near) == 6 and len(different) == 49
    assert max(near) < NEAR_COPIES < min(different), (sorted(near), sorted(different)[:5])
    assert max(different) <= 1.0 and min(near) >= 0.0


def test_the_embedding_is_deterministic_and_a_painting_is_at_zero_from_itself(paintings):
    png = paintings["small bloom"][0]
    assert (embed(png) == embed(png)).all()
    assert distance(embed(png), embed(png)) == 0.0


def test_a_collapsed_set_spreads_less_than_the_collapse_share_of_a_varied_one(paintings):
    varied = [found[0] for found in paintings.values()][:4]
    collapsed = paintings["two washes"] + paintings["small bloom"][:1]  # three near-copies and one other
    assert spread(collapsed) < COLLAPSE_SHARE * spread(varied)


def write_film(run_dir, steps: list[list[list[bytes]]]) -> RunReader:
    """A film whose step s, group g painted steps[s][g], as the trainer's writer records it."""
    writer = RunWriter(run_dir)
    weights = preset("judge-led")
    for step, groups in enumerate(steps, start=1):
        index = 0
        for group, pngs in enumerate(groups):
            for png in pngs:
                render = RenderResult(status="passed", code=WASHES, png_base64=base64.b64encode(png).decode())
                evaluation = Evaluation(render=render, reward=RewardBreakdown(total=0.5, gate=1.0, length=0.5, weights=weights))
                fields = {"step": step, "index": index, "group": group, "prompt": user_prompt("a peach hibiscus")}
                writer.record(RolloutRecord.answered(evaluation, **fields, seed=step, reply=WASHES))
                index += 1
    return RunReader(run_dir)


def test_check_run_warns_when_the_last_groups_paint_one_picture(paintings, tmp_path):
    varied = [paintings[family][0] for family in ("two washes", "small bloom", "hibiscus a", "hibiscus b")]
    others = [paintings[family][0] for family in ("violet rose 0", "violet rose 1", "green leaves", "two washes")]
    copies = paintings["two washes"] + paintings["two washes"][:1]
    collapsed = write_film(tmp_path / "collapsed", [[varied, others], [varied, others], [copies, copies]])
    check = paintings_vary(collapsed.all_rollouts())
    assert check.status == "warn", check
    assert check.evidence[0].startswith("first 2 groups (step 1): spread 0.")
    assert format_checks([check]).endswith("all 1 checks passed, 1 with a warning")
    steady = write_film(tmp_path / "steady", [[varied, others], [others, varied]])
    assert paintings_vary(steady.all_rollouts()).status == "pass"


def test_check_run_skips_a_film_with_too_few_groups_of_paintings(paintings, tmp_path):
    few = write_film(tmp_path / "few", [[paintings["two washes"][:2], paintings["small bloom"][:1]]])
    check = paintings_vary(few.all_rollouts())
    assert check.status == "skip"
    assert check.line.startswith("3 paintings, 1 groups with two or more: too few")


def test_brush_sequence_is_the_calls_in_written_order_without_comments():
    code = "brush.noStroke(); // brush.fill('#000')\n/* brush.circle(1, 2, 3) */ brush . fill('#fff', 90);\nbrush.fillBleed(0.3)"
    assert brush_sequence(code) == ["noStroke", "fill", "fillBleed"]
    assert brush_sequence(sketch("two-washes.js"))[:3] == ["scaleBrushes", "noStroke", "fill"]
    assert brush_sequence("circle(1, 2, 3); mybrush.fill(1)") == []


def test_distinct_share_counts_the_samples_no_other_sample_copied():
    assert distinct_share([["fill"], ["fill"], ["circle"], ["fill", "circle"]]) == 0.5
    assert distinct_share([["fill"], ["fill"]]) == 0.0
    assert distinct_share([["fill"], ["circle"]]) == 1.0
    assert distinct_share([["fill"]]) is None
    assert distinct_share([]) is None


def test_spread_needs_two_paintings():
    assert spread([]) is None
    assert spread([b"not even read"]) is None

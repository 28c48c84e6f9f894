"""`watercolour pool calibrate`: the judge's win rate of policy paintings against each reference."""

import json

from tests.conftest import BUNDLED_POOL
from tests.studio.conftest import chat, watercolour
from watercolour_harness.scripted_http import ScriptedServer
from watercolour_shared.judge.chat_judge import PROMPT_FILE
from watercolour_shared.judge.offline import MARGIN, wash_quality
from watercolour_shared.reference_pool import ReferencePool
from watercolour_shared.run_dir import RunReader


def expected_win_rate(paintings: list[bytes], reference: bytes) -> float:
    """The offline judge prefers the higher wash quality, the first shown when they lie within MARGIN: won as A
    unless the reference is better by MARGIN, as B only when better than the reference by MARGIN."""
    quality = wash_quality(reference)
    wins = [((quality - wash_quality(p) < MARGIN) + (wash_quality(p) - quality >= MARGIN)) / 2 for p in paintings]
    return sum(wins) / len(wins)


def test_win_rates_against_each_reference_from_a_runs_last_steps(film):
    run = RunReader(film)
    paintings = [r.png.read_bytes() for step in run.steps()[-2:] for r in run.rollouts(step) if r.png]
    pool = ReferencePool.from_folder(BUNDLED_POOL)
    expected = {entry.id: expected_win_rate(paintings, entry.image.read_bytes()) for entry in pool.entries}
    hardest, easiest = min(expected.values()), max(expected.values())
    done = watercolour("pool", "calibrate", "--pool", str(BUNDLED_POOL), "--paintings", str(film), "--last-steps", "2",
                       "--judge", "offline", "--too-hard", str(hardest), "--too-easy", str(easiest), "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert {row["reference"]: row["win_rate"] for row in rows} == expected
    assert [row["win_rate"] for row in rows] == sorted(expected.values())  # hardest first
    for row in rows:
        entry = next(e for e in pool.entries if e.id == row["reference"])
        assert row["tier"] == entry.tier and row["judged"] == len(paintings)
        label = "too hard" if row["win_rate"] == hardest else "too easy" if row["win_rate"] == easiest else "useful"
        assert row["verdict"] == label


def test_a_chat_judge_is_called_in_both_orders_for_every_pair(film):
    verdict = chat(json.dumps({"winner": "A", "reason": "A glows more"}))
    paintings = sorted((film / "film" / "step-000001").glob("*.png"))
    with ScriptedServer([(200, verdict, 0)]) as judge:
        done = watercolour("pool", "calibrate", "--pool", str(BUNDLED_POOL), "--paintings", str(paintings[0].parent),
                           "--judge-base-url", judge.url, "--judge-model", "scripted-vlm")  # fmt: skip
    assert done.returncode == 0, done.stderr
    references = len(ReferencePool.from_folder(BUNDLED_POOL).entries)
    assert len(judge.requests) == 2 * references * len(paintings)
    assert {r["body"]["model"] for r in judge.requests} == {"scripted-vlm"}
    assert judge.requests[0]["body"]["messages"][0]["content"][0]["text"] == PROMPT_FILE.read_text()
    lines = done.stdout.splitlines()
    assert lines[0] == f"{len(paintings)} policy paintings against {references} references, hardest first"
    assert all("win rate  0.50" in line and line.endswith("useful") for line in lines[1:])  # always A: every pair splits

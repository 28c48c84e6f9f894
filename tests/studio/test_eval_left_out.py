"""`watercolour eval` against an endpoint policy that answers oddly, as a user runs it (a real process, a real
environment, scripted OpenAI-compatible endpoints on loopback): what the model wrote is judged, a reply too long
for the environment's wire failing the gate as `oversized`; what the endpoint failed to give (no choices, a null
content, content that is a list, a number or an object, an HTTP error) is left out and counted per policy, never
lost; a saved reply that cannot be judged is left out on every rerun, and no rerun crashes on it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.studio.conftest import PAINTINGS, chat, fenced, watercolour
from watercolour_harness.scripted_http import ScriptedServer
from watercolour_shared.render_wire import MAX_REPLY_CHARS
from watercolour_shared.run_dir.evaluation import read_evaluation, replies_file

SUBJECTS = ["a blue iris", "a pear and its shadow"]
SAMPLES = 4
CHEAP = PAINTINGS[3]  # two-washes.js: passes the gate and renders fast


def message(content) -> tuple:
    """An answer whose first choice's content is `content`, whatever its type."""
    answer = {"object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}
    return (200, answer, 0)


@pytest.fixture
def subjects(tmp_path) -> Path:
    path = tmp_path / "subjects.txt"
    path.write_text("\n".join(SUBJECTS) + "\n")
    return path


def run_eval(a: str, b: str, env_url: str, subjects: Path, out: Path, samples: int = SAMPLES):
    return watercolour(
        "eval", "--a", a, "--b", b, "--env-url", env_url, "--subjects", str(subjects), "--samples", str(samples),
        "--judge", "offline", "--out", str(out), "--quiet", timeout=900,
    )  # fmt: skip


def test_what_the_endpoint_failed_to_give_is_left_out_and_counted_and_what_it_wrote_is_judged(
    full_reward_env_url, subjects, tmp_path
):
    """B's eight samples, in order: a reply past the wire's limit, list content, number content, null content, no
    choices, HTTP 500 past the retries, 180,000 characters of `/* ` (under the wire's limit, over the gate's) and
    object content. The old eval died on the first of them with a traceback; the 180,000 characters took its
    brush-call step a minute."""
    over_the_wire = fenced(CHEAP) + " " * MAX_REPLY_CHARS
    script_b = [
        message(over_the_wire),
        message([{"type": "text", "text": fenced(CHEAP)}]),
        message(42),
        message(None),
        (200, {"object": "chat.completion", "choices": []}, 0),
        *[(500, {"error": "internal"}, 0)] * 3,
        message("/* " * 60_000),
        message({"code": CHEAP}),
    ]
    out = tmp_path / "eval"
    with ScriptedServer([(200, chat(fenced(CHEAP)), 0)]) as model_a, ScriptedServer(script_b) as model_b:
        done = run_eval(f"{model_a.url}#a", f"{model_b.url}#b", full_reward_env_url, subjects, out)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    evaluation = read_evaluation(out)
    a, b, match = evaluation.policies["A"], evaluation.policies["B"], evaluation.head_to_head
    assert (a.paintings, a.unavailable, a.gate_pass_rate.mean) == (8, 0, 1.0)
    assert (b.paintings, b.unavailable) == (2, 6), b
    assert b.violations == {"oversized": 2} and b.gate_pass_rate.mean == 0.0
    # The two replies the model wrote lose to A's passing paintings; the six it did not give are left out, not lost.
    assert (match.wins, match.losses, match.ties, match.left_out) == (0, 2, 0, 6), match
    failed = [p for row in evaluation.rows for p in row.b if p.status == "failed"]
    assert all(p.reward["gate"] == 0.0 and p.reward["judge"] is None for p in failed)
    reasons = [p.failure for row in evaluation.rows for p in row.b if p.status == "unavailable"]
    kinds = ["list content", "number content", "null content", "no choices", "HTTP 500", "object content"]
    assert reasons == [f"the policy gave no answer: {kind}" for kind in kinds]
    [left_out] = [warning for warning in evaluation.warnings if warning.startswith("B: ")]
    assert "6 of 8 paintings left out" in left_out and all(f"{kind} (1)" in left_out for kind in kinds), left_out
    assert "B: 2 paintings scored, 6 left out" in done.stdout and "A: 8 paintings scored, 0 left out" in done.stdout
    saved = [json.loads(line) for line in replies_file(out, "B").read_text().splitlines()]
    assert [row["sample"] for row in saved] == [0, 2]  # only the text is kept: a rerun asks again for the rest


def test_a_saved_reply_that_cannot_be_judged_is_left_out_and_counted_on_every_rerun(full_reward_env_url, subjects, tmp_path):
    """An earlier eval saved what an endpoint sent, text or not, and then crashed; every rerun read it back and
    crashed again. Now a saved reply that is not text is left out and counted, a saved reply past the wire's limit
    fails the gate, a line no JSON reader can take is skipped, and the policy is not asked again for any of them."""
    subjects.write_text(SUBJECTS[0] + "\n")
    out = tmp_path / "eval"
    out.mkdir()
    saved = [[{"type": "text", "text": fenced(CHEAP)}], 42, {"code": CHEAP}, "x" * (MAX_REPLY_CHARS + 1)]
    lines = [json.dumps({"subject": SUBJECTS[0], "sample": k, "seed": k, "reply": reply}) for k, reply in enumerate(saved)]
    replies_file(out, "B").write_text("\n".join(["[" * 100_000, *lines, '{"subject": ["not", "a", "key"]']) + "\n")
    with ScriptedServer([(200, chat(fenced(CHEAP)), 0)]) as model_a, ScriptedServer([(200, chat(fenced(CHEAP)), 0)]) as model_b:
        runs = [run_eval(f"{model_a.url}#a", f"{model_b.url}#b", full_reward_env_url, subjects, out) for _ in range(2)]
        asked_b = len(model_b.requests)
    for done in runs:
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
    assert asked_b == 0
    evaluation = read_evaluation(out)
    b, match = evaluation.policies["B"], evaluation.head_to_head
    assert (b.paintings, b.unavailable, b.violations) == (1, 3, {"oversized": 1}), b
    assert (match.losses, match.left_out) == (1, 3)
    reasons = {p.failure for p in evaluation.rows[0].b if p.status == "unavailable"}
    assert reasons == {"the policy gave no answer: a saved reply that is not text"}
    assert any(warning.startswith("B: 3 of 4 paintings left out") for warning in evaluation.warnings), evaluation.warnings

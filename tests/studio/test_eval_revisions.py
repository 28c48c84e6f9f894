"""`watercolour eval --revisions N` end to end: a real process, a real environment over HTTP and its WebSocket
(offline judge, heuristic scorer), OpenAI-compatible endpoints served on loopback that answer by what they are asked,
and the page in Chromium. Without the flag, eval.json and the page are what they were (version 1, field for field)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from tests.studio.conftest import PAINTINGS, chat, fenced, watercolour
from tests.studio.film import REFUSAL
from watercolour_harness.scripted_http import LoopbackServer, QuietHandler
from watercolour_shared.prompts import chat_messages, revision_request
from watercolour_shared.run_dir.evaluation import (
    EVALUATION_VERSION,
    REVISIONS_VERSION,
    Evaluation,
    read_evaluation,
    revisions_file,
)

SUBJECTS = ["a blue iris", "a pear and its shadow", "a lighthouse on a cliff"]
SAMPLES = 2
GOOD = fenced(PAINTINGS[0])
# What eval.json held before revisions, key for key: an eval without them must write exactly these.
V1_KEYS = {
    "top": ["version", "created", "subjects", "samples", "seed", "pairs", "judge", "training_judge", "same_judge",
            "policies", "head_to_head", "diversity_ratio", "warnings", "seconds", "rows"],
    "row": ["subject", "a", "b", "matches", "diversity", "distinct_code"],
    "painting": ["sample", "seed", "status", "png", "js", "violations", "reward", "hps_scorer", "brush_calls", "failure"],
}  # fmt: skip


class Painter(LoopbackServer):
    """A chat-completions endpoint that answers by the conversation: `first` to a first request, `revised` to one that
    carries a critique (a function of the subject, or a (status, body) pair for an answer that is no painting)."""

    def __init__(self, first: str, revised):
        self.requests: list[dict] = []
        lock, server = threading.Lock(), self

        class Handler(QuietHandler):
            def do_POST(self):  # noqa: N802 - the http.server API
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
                with lock:
                    server.requests.append(body)
                messages = body["messages"]
                if len(messages) == 2:
                    return self.send_json(200, chat(first))
                answer = revised(messages[1]["content"])
                self.send_json(*answer) if isinstance(answer, tuple) else self.send_json(200, chat(answer))

            def do_GET(self):  # noqa: N802 - the model list eval asks for first
                self.send_json(200, {"object": "list", "data": [{"id": "painter"}]})

        super().__init__(Handler)


@pytest.fixture
def subjects(tmp_path) -> Path:
    path = tmp_path / "subjects.txt"
    path.write_text("\n".join(SUBJECTS) + "\n")
    return path


def run_eval(a: str, b: str, env_url: str, subjects: Path, out: Path, *flags: str):
    return watercolour(
        "eval", "--a", a, "--b", b, "--env-url", env_url, "--subjects", str(subjects), "--samples", str(SAMPLES),
        "--judge", "offline", "--out", str(out), "--quiet", *flags, timeout=900,
    )  # fmt: skip


def worse(subject: str) -> str:
    """A's revision: prose instead of the sketch, which the gate fails: a real 0, worse than the painting it replaced."""
    return REFUSAL


def better(subject: str):
    """B's revision: the painting its first reply failed to make; for the last subject no answer at all (503)."""
    return (503, {"error": "overloaded"}) if SUBJECTS[2] in subject else GOOD


async def test_revisions_measure_each_policys_gain_and_record_every_turn(full_reward_env_url, subjects, tmp_path, page):
    """A paints well, then revises into prose (worse); B refuses first, then paints (better). The gain is each one's
    last painting against its first, so A's must fall below 50% and B's rise above it; B's episodes of the last
    subject lose their revision (no answer) and are dropped: left out, never a loss."""
    out = tmp_path / "eval"
    with Painter(GOOD, worse) as model_a, Painter(REFUSAL, better) as model_b:
        done = run_eval(f"{model_a.url}#a", f"{model_b.url}#b", full_reward_env_url, subjects, out, "--revisions", "1")
    assert done.returncode == 0, done.stderr
    evaluation = read_evaluation(out)
    assert evaluation.version == REVISIONS_VERSION and evaluation.revisions == 1
    gain_a, gain_b = evaluation.revision_gain["A"], evaluation.revision_gain["B"]
    every = len(SUBJECTS) * SAMPLES
    assert (gain_a.losses, gain_a.wins, gain_a.ties, gain_a.left_out) == (every, 0, 0, 0)
    assert gain_a.win_rate.mean == 0 and gain_a.win_rate.high < 0.5 and not gain_a.better
    assert (gain_b.wins, gain_b.left_out, gain_b.losses) == (every - SAMPLES, SAMPLES, 0) and gain_b.win_rate.mean == 1
    # B against A on the last paintings: B's painted where A's turned to prose; the dropped episodes left out.
    match = evaluation.head_to_head
    assert (match.wins, match.left_out, match.losses) == (every - SAMPLES, SAMPLES, 0)
    assert evaluation.policies["B"].unavailable == SAMPLES and evaluation.policies["A"].gate_pass_rate.mean == 0

    # Every turn is recorded: its code, its painting, its critique; the policy read the critique in the conversation.
    for index, row in enumerate(evaluation.rows):
        for label, expected_first in (("A", "passed"), ("B", "failed")):
            for sample, turns in enumerate(row.turns[label]):
                painted = [0] if (label, index) == ("B", 2) else [0, 1]  # B's revision never came: the episode stopped
                assert [turn.turn for turn in turns] == painted and turns[0].status == expected_first
                assert all((out / turn.js).is_file() and turn.critique and turn.critique_source == "rules" for turn in turns)
                assert all(turn.png is None or (out / turn.png).is_file() for turn in turns)
                assert turns[0].js.endswith(f"sample-{sample}-turn-0.js")
        assert Path(row.a[0].js).name == "sample-0.js"  # the last painting where an eval without revisions keeps it
    first_a = evaluation.rows[0].turns["A"][0][0]
    assert (out / first_a.png).is_file() and "Paint covers" in first_a.critique
    revision = next(r for r in model_a.requests if len(r["messages"]) == 4 and SUBJECTS[0] in r["messages"][1]["content"])
    assert revision["messages"][:2] == chat_messages(SUBJECTS[0])
    assert revision["messages"][2] == {"role": "assistant", "content": GOOD}
    assert revision["messages"][3] == {"role": "user", "content": revision_request(first_a.critique, 1)}
    seeds = [{r["seed"] for r in model_a.requests if r["messages"][:2] == chat_messages(SUBJECTS[0]) and len(r["messages"]) == n}
             for n in (2, 4)]  # fmt: skip
    assert seeds[0] == seeds[1] and len(seeds[0]) == SAMPLES  # every turn of a sample is asked with its seed
    dropped = evaluation.rows[2].b
    assert all(p.status == "unavailable" and "no answer" in p.failure and "revision 1" in p.failure for p in dropped)
    kept = [json.loads(line) for line in revisions_file(out, "A").read_text().splitlines()]
    assert len(kept) == every and {row["turn"] for row in kept} == {1} and all(row["reply"] == REFUSAL for row in kept)

    # The printed summary: the gain of each, then B against A on the last paintings.
    lines = done.stdout.splitlines()
    assert lines[0] == "revision gain (1 revision; each episode's last painting against its own first):"
    assert lines[1].startswith("  A: win rate 0% [0%, 0%], 0 won, 6 lost")
    assert lines[2].startswith("  B: win rate 100% [100%, 100%], 4 won, 0 lost, 0 tied, 2 left out")
    assert lines[3].startswith("B against A (matched pairs, last paintings): win rate 100%")

    # A rerun asks A nothing again (its first replies and revisions are kept); B only for the revisions that never came.
    asked = len(model_a.requests)
    with Painter(GOOD, worse) as model_a, Painter(REFUSAL, better) as model_b:
        again = run_eval(f"{model_a.url}#a", f"{model_b.url}#b", full_reward_env_url, subjects, out, "--revisions", "1")
    assert again.returncode == 0 and not model_a.requests and asked == 2 * every
    assert model_b.requests and all(SUBJECTS[2] in r["messages"][1]["content"] for r in model_b.requests)
    assert read_evaluation(out).revision_gain["A"] == gain_a

    await page.goto((out / "index.html").as_uri())
    assert await page.locator(".revision-gain .gain").count() == 2
    assert "0%" in await page.inner_text('.revision-gain .gain[data-policy="A"] .win-rate')
    assert await page.locator('section.subject .chains[data-policy="A"] figure.turn').count() == len(SUBJECTS) * SAMPLES * 2
    assert await page.locator(".chain .critique").count() >= len(SUBJECTS) * SAMPLES * 3
    widths = await page.eval_on_selector_all("figure.turn img", "images => images.map(image => image.naturalWidth)")
    assert widths and all(width == 600 for width in widths)


def test_without_revisions_eval_writes_what_it_wrote_before(full_reward_env_url, subjects, tmp_path):
    """The default and `--revisions 0` are the eval without revisions: version 1, the same keys, no revision file,
    no episode, the same page and summary; and the two give the same measurements."""
    outs = {flag: tmp_path / f"eval{flag}" for flag in ("", "0")}
    with Painter(GOOD, worse) as model_a, Painter(fenced(PAINTINGS[3]), worse) as model_b:
        policies = (f"{model_a.url}#a", f"{model_b.url}#b")
        flags = {flag: ("--revisions", flag) if flag else () for flag in outs}
        done = {flag: run_eval(*policies, full_reward_env_url, subjects, out, *flags[flag]) for flag, out in outs.items()}
        assert all(len(r["messages"]) == 2 for r in model_a.requests + model_b.requests)  # nobody was asked to revise
    written = {}
    for flag, out in outs.items():
        assert done[flag].returncode == 0, done[flag].stderr
        assert done[flag].stdout.splitlines()[0].startswith("B against A (matched pairs): win rate")
        raw = json.loads((out / "eval.json").read_text())
        assert list(raw) == V1_KEYS["top"] and raw["version"] == EVALUATION_VERSION == 1
        assert all(list(row) == V1_KEYS["row"] for row in raw["rows"])
        assert all(list(p) == V1_KEYS["painting"] for row in raw["rows"] for p in row["a"] + row["b"])
        assert not revisions_file(out, "A").exists() and not list(out.rglob("*-turn-*"))
        page = (out / "index.html").read_text()
        assert "revision" not in page.lower() and "chain" not in page
        written[flag] = {key: value for key, value in raw.items() if key not in ("created", "seconds")}
        # The model reads it back and writes it again the same, byte for byte.
        assert json.dumps(Evaluation.model_validate(raw).model_dump(mode="json"), indent=1) == (out / "eval.json").read_text()
    assert written[""] == written["0"]

"""One run directory, every part: what the trainer's reward function and step monitor write is what the
gallery, `check-run`, the Hub upload and the demo's summary read back, rollout for rollout and number
for number. A part that wrote or read the directory its own way would disagree here."""

from __future__ import annotations

import asyncio
import base64
import io
from types import SimpleNamespace

import pytest
from fastapi.testclient import TestClient
from PIL import Image

from watercolour_demo.summary import summarise as demo_summary
from watercolour_shared.render_wire import EpisodeOptions, Evaluation, RenderResult, RewardBreakdown, Violation
from watercolour_shared.reward import MIX_TERMS, PRESETS
from watercolour_shared.run_dir import RunReader, RunWriter
from watercolour_shared.sampling import Sampling
from watercolour_studio.checks.run_checks import CheckOptions, run_checks
from watercolour_studio.eval.policies import policy_samplings
from watercolour_studio.gallery.app import gallery_app
from watercolour_trainer import config
from watercolour_trainer.env_reward import EnvReward, StepClock
from watercolour_trainer.hub import rollouts_dataset
from watercolour_trainer.monitoring import StepMonitor
from watercolour_trainer.plan import build_plan
from watercolour_trainer.replicas import Outcome

PNG = io.BytesIO()
Image.new("RGB", (600, 600), "#b83b5e").save(PNG, format="PNG")
WEIGHTS = PRESETS["judge-led"]
PAINTED = Evaluation(
    render=RenderResult(status="passed", code="function setup() {}", png_base64=base64.b64encode(PNG.getvalue()).decode()),
    reward=RewardBreakdown(total=0.61, gate=1.0, length=0.2, judge=0.5, hps=0.75, weights=WEIGHTS, details={"hps": {"mu": 9}}),
)
REFUSED = Evaluation(
    render=RenderResult(status="failed", violations=[Violation(code="no_sketch", message="no code")]),
    reward=RewardBreakdown(total=0.0, gate=0.0, length=0.0, weights=WEIGHTS),
)
# Two groups: a painting and a dropped rollout, then two refusals (all-equal rewards: no gradient).
OUTCOMES = [Outcome(PAINTED), Outcome(None, "HTTP 503"), Outcome(REFUSED), Outcome(REFUSED)]
REPLIES = ["```js\nfunction setup() {}\n```", "lost", "I cannot.", "No."]


class ScriptedReplicas:
    """Each reply's scripted outcome; it keeps which subject each call was rendered for."""

    def __init__(self):
        self.calls: list[tuple[str, list[str]]] = []

    async def evaluate(self, replies, seed, options):
        self.calls.append((options.subject, replies))
        return [OUTCOMES[REPLIES.index(reply)] for reply in replies]


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> RunReader:
    """One step through the trainer's own reward function and step monitor."""
    run = RunWriter(tmp_path_factory.mktemp("run"))
    run.write_plan({"model": "tiny", "subjects": ["a rose"], "weights": WEIGHTS, "lora": None, "push_to": None})
    clock = StepClock()
    replicas = ScriptedReplicas()
    reward = EnvReward(replicas, EpisodeOptions(subject="a rose"), run, clock, seed=3)
    prompts = [[{"role": "user", "content": "Paint a rose in loose watercolour."}]] * 4
    state = SimpleNamespace(global_step=0, is_world_process_zero=True)
    monitor = StepMonitor(run, clock)
    monitor.on_step_begin(None, state, None)
    subjects = ["a rose", "a rose", "a tulip", "a tulip"]
    rewards = asyncio.run(reward(prompts, REPLIES, state, episode_id=[0, 0, 1, 1], subject=subjects))
    assert rewards == [0.61, None, 0.0, 0.0]
    assert sorted(replicas.calls) == [("a rose", REPLIES[:2]), ("a tulip", REPLIES[2:])]  # each group its own subject
    state.global_step = 1
    monitor.on_step_end(None, state, None)
    return RunReader(run.root)


def test_the_reader_gives_back_what_the_trainer_wrote(trained):
    rollouts = trained.rollouts(1)
    assert [r.record.reply for r in rollouts] == REPLIES
    kept = PAINTED.model_copy(update={"render": PAINTED.render.model_copy(update={"png_base64": None})})  # its PNG lies beside it
    assert [r.record.evaluation for r in rollouts] == [kept, None, REFUSED, REFUSED]
    assert rollouts[0].png.read_bytes() == PNG.getvalue() and [r.png for r in rollouts[1:]] == [None] * 3
    assert [r.js.read_text() for r in rollouts] == ["function setup() {}", "lost", "I cannot.", "No."]
    assert rollouts[1].record.dropped_reason == "HTTP 503"
    [metrics] = trained.metrics()
    assert (metrics.rollouts, metrics.dropped, metrics.groups, metrics.all_equal_groups, metrics.below_0_3) == (4, 1, 2, 1, 2)
    assert metrics.best == "film/step-000001/rollout-00.png" and (trained.root / metrics.best).is_file()


def test_the_gallery_shows_the_same_rollouts_and_numbers(trained):
    client = TestClient(gallery_app(trained, CheckOptions()))
    run = client.get("/api/run").json()
    assert run["metrics"] == [trained.metrics()[0].model_dump(mode="json")] and run["terms"] == list(MIX_TERMS)
    cards = client.get("/api/steps/1").json()["items"]
    assert [c["reward"] for c in cards] == [0.61, None, 0.0, 0.0]
    assert [c["band"] for c in cards] == ["high", "dropped", "low", "low"]
    assert cards[0]["breakdown"] == {"gate": 1.0, "length": 0.2, "judge": 0.5, "hps": 0.75}
    assert [c["violations"] for c in cards] == [[], [], ["no_sketch"], ["no_sketch"]]
    assert client.get(cards[0]["image"]).content == PNG.getvalue()
    detail = client.get("/api/steps/1/rollouts/0").json()
    assert detail["record"] == trained.rollout(1, 0).record.as_json() and detail["code"] == "function setup() {}"


def test_check_run_counts_what_the_metrics_count(trained):
    checks = {check.name: check for check in run_checks(trained, CheckOptions(max_timeout_share=0.5))}
    assert checks["groups differ"].line == "1 of 2 groups had all-equal rewards"
    assert checks["environment rendered"].line.startswith("1 of 4 rollouts rendered a painting; 0 timeouts, 1 dropped")
    assert checks["artifacts exist"].line == "missing or unreadable: the model"  # lora is null: a whole model is expected


def test_the_hub_rows_hold_the_same_rollouts(trained):
    rows = rollouts_dataset(trained).to_list()
    assert [row["reward"] for row in rows] == pytest.approx([0.61, None, 0.0, 0.0], nan_ok=True)
    assert [row["status"] for row in rows] == ["passed", "unavailable", "failed", "failed"]
    assert {term: rows[0][term] for term in MIX_TERMS} == pytest.approx(trained.rollout(1, 0).record.scores())
    assert rows[0]["image"]["bytes"] == PNG.getvalue() and rows[2]["code"] == "I cannot."


def test_the_demo_summary_reads_the_same_film(trained):
    summary = demo_summary(trained.root, trained.metrics(), {})
    assert summary["best_painting"] == str(trained.root / trained.metrics()[0].best)
    assert summary["steps"][0]["look"] == dict.fromkeys(("zoom", "wash", "glaze"))  # its replies wrote no look line
    assert summary["steps"][0]["reward_mean"] == pytest.approx(0.61 / 3)


def test_eval_samples_as_the_trainers_plan_says(tmp_path):
    """run.json's `sampling`, from the launch script's own plan, is what `watercolour eval` of the run samples with."""
    flags = ["--temperature", "0.6", "--top_k", "5", "--max_completion_length", "1024", "--model_name_or_path", "m"]
    run = config.parse([*flags, "--env_url", "http://127.0.0.1:8000", "--use_cpu"])
    RunWriter(tmp_path).write_plan(build_plan(run, tmp_path, run.env_url, {}))
    sampled = Sampling(temperature=0.6, top_p=1.0, top_k=5, max_new_tokens=1024)  # top_p: TRL's own default
    assert RunReader(tmp_path).plan().sampled() == (sampled, None)
    assert policy_samplings({"A": "warm-start", "B": str(tmp_path)}, {}) == ({"A": sampled, "B": sampled}, [])

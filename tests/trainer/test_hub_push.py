"""--push-to-hub, against a local server that speaks the Hub's API: the adapter and its film go to a model
repo, and every rollout becomes one row of a dataset (code and image) that loads back."""

from __future__ import annotations

import base64
import io
import json

import pyarrow.parquet as pq
import pytest
from huggingface_hub import HfApi
from huggingface_hub.errors import HfHubHTTPError
from PIL import Image

from tests.hub_server import HubServer
from watercolour_shared.render_wire import Evaluation, RenderResult, RewardBreakdown
from watercolour_shared.reward import PRESETS
from watercolour_shared.run_dir import RolloutRecord, RunWriter, StepTimings, summarise
from watercolour_trainer.hub import push_run

PNG = io.BytesIO()
Image.new("RGB", (600, 600), "#f6f1e7").save(PNG, format="PNG")


def rollout(index: int, reply: str, evaluation: Evaluation | None, failure: str | None = None) -> RolloutRecord:
    return RolloutRecord.answered(evaluation, failure, step=1, index=index, group=0, prompt="Paint.", seed=7, reply=reply)


@pytest.fixture
def finished_run(tmp_path) -> RunWriter:
    """A run directory as the trainer leaves it: one step with a painting, a gate failure and a dropped rollout."""
    run = RunWriter(tmp_path / "run")
    painted = Evaluation(
        render=RenderResult(status="passed", code="function setup() {}", png_base64=base64.b64encode(PNG.getvalue()).decode()),
        reward=RewardBreakdown(total=0.7, gate=1.0, length=0.5, judge=0.75, hps=0.6, weights=PRESETS["judge-led"]),
    )
    refused = Evaluation(
        render=RenderResult(status="failed", code=None),
        reward=RewardBreakdown(total=0.0, gate=0.0, length=0.0, weights=PRESETS["judge-led"]),
    )
    records = [rollout(0, "function setup() {}", painted), rollout(1, "sorry", refused), rollout(2, "lost", None, "env down")]
    for record in records:
        run.record(record)
    run.adapter.mkdir(parents=True)
    (run.adapter / "adapter_config.json").write_text(json.dumps({"r": 16}))
    (run.adapter / "adapter_model.safetensors").write_bytes(b"weights")
    run.append_metrics(summarise(1, records, StepTimings(generation_s=1, render_s=1, scoring_s=1, training_s=1), "now"))
    run.write_plan({"model": "tiny", "subjects": ["a rose"], "weights": PRESETS["judge-led"], "lora": {"r": 16}, "push_to": None})
    return run


def test_push_uploads_the_adapter_the_film_and_a_rollouts_dataset(finished_run):
    with HubServer(token="hf_test") as hub:
        urls = push_run(finished_run, "tester/watercolour-grpo", HfApi(endpoint=hub.url, token="hf_test"))
        model_files = hub.repo("tester/watercolour-grpo").files()
        dataset_files = hub.repo("tester/watercolour-grpo-rollouts", "dataset").files()
    assert urls["adapter"].endswith("tester/watercolour-grpo")
    assert model_files["adapter_model.safetensors"] == b"weights"
    assert model_files["film/step-000001/rollout-00.png"] == PNG.getvalue()
    assert {"film/step-000001/rollout-01.js", "film/step-000001/rollout-02.json", "metrics.jsonl", "run.json"} <= set(model_files)
    [parquet] = [content for name, content in dataset_files.items() if name.endswith(".parquet")]
    rows = pq.read_table(io.BytesIO(parquet)).to_pylist()
    assert [row["index"] for row in rows] == [0, 1, 2]
    assert rows[0]["reward"] == pytest.approx(0.7) and rows[0]["judge"] == pytest.approx(0.75)
    assert Image.open(io.BytesIO(rows[0]["image"]["bytes"])).size == (600, 600)
    assert rows[1]["image"] is None and rows[1]["code"] == "sorry"
    assert rows[2]["reward"] is None and rows[2]["status"] == "unavailable"


def test_a_refused_token_is_a_clear_error(finished_run):
    with HubServer(token="hf_test") as hub, pytest.raises(HfHubHTTPError, match="401"):
        push_run(finished_run, "tester/watercolour-grpo", HfApi(endpoint=hub.url, token="hf_wrong"))

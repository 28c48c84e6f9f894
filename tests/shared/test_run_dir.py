"""The run directory's format (docs/run-directory.md): a run written before the contract moved to shared/
(run_written_before/, made by that trainer) still reads, and the writer writes it again byte for byte."""

from __future__ import annotations

import base64
import json
import re
import shutil
from pathlib import Path

from tests.conftest import ROOT
from watercolour_shared.run_dir import RolloutRecord, RunPlan, RunReader, RunWriter, StepMetrics
from watercolour_shared.sampling import Sampling

BEFORE = Path(__file__).with_name("run_written_before")
DOC = ROOT / "docs" / "run-directory.md"


def test_a_run_written_before_reads_as_typed_records():
    run = RunReader(BEFORE)
    assert run.plan().model == "Qwen/Qwen3.5-35B-A3B" and run.plan().saves == "adapter"
    [metrics] = run.metrics()
    assert (metrics.step, metrics.dropped, metrics.best) == (1, 1, "film/step-000001/rollout-00.png")
    painted, refused, dropped = run.rollouts(1)
    assert painted.png is not None and painted.record.scores() == {"gate": 1.0, "length": 0.2, "judge": 0.5, "hps": 0.75}
    assert refused.png is None and refused.record.violations == ["no_sketch"] and refused.record.code == "I cannot."
    assert dropped.record.evaluation is None and dropped.record.status == "unavailable" and dropped.record.reward is None


# Fields added to metrics.jsonl since that run was written, with the value a run that lacks them reads as.
ADDED_SINCE = {"compiled_graphs": 0, "timings.compile_s": 0.0}


def without_added(line: str) -> dict:
    row = json.loads(line)
    for name, default in ADDED_SINCE.items():
        *parents, field = name.split(".")
        holder = row
        for parent in parents:
            holder = holder[parent]
        assert holder.pop(field) == default, name
    return row


def test_the_writer_writes_that_run_again_byte_for_byte(tmp_path):
    """Byte for byte, except metrics.jsonl's added fields: those must read back as their defaults."""
    before, again = RunReader(BEFORE), RunWriter(tmp_path)
    for rollout in before.rollouts(1):
        record = rollout.record
        if rollout.png:  # the trainer's record carries its painting until the writer puts it beside the record
            png = base64.b64encode(rollout.png.read_bytes()).decode()
            record = record.model_copy(update={"evaluation": _with_png(record, png)})
        again.record(record)
    for metrics in before.metrics():
        again.append_metrics(metrics)
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert written == sorted(p.relative_to(BEFORE) for p in BEFORE.rglob("*") if p.is_file() and p.name != "run.json")
    for path in written:
        if path.name == "metrics.jsonl":
            lines = zip((tmp_path / path).read_text().splitlines(), (BEFORE / path).read_text().splitlines(), strict=True)
            assert all(without_added(new) == json.loads(old) for new, old in lines)
        else:
            assert (tmp_path / path).read_bytes() == (BEFORE / path).read_bytes(), path


def test_the_plan_keeps_what_the_trainer_wrote(tmp_path):
    RunWriter(tmp_path).write_plan(json.loads((BEFORE / "run.json").read_text()))
    written, before = json.loads((tmp_path / "run.json").read_text()), json.loads((BEFORE / "run.json").read_text())
    assert {key: written[key] for key in before} == before
    assert written.keys() - before.keys() == {"subjects", "judge", "sampling", "eval_steps"}
    assert written["subjects"] == [before["subject"]] and written["eval_steps"] is None  # nor a held-out curve
    assert written["judge"] is None  # written before runs recorded the judge that trained them
    assert written["sampling"] is None  # nor how they sampled: read back, it is the defaults, and says so
    assert RunReader(tmp_path).plan().sampled() == (Sampling(), "run.json records no sampling: the defaults")


def test_resume_forgets_the_later_steps_and_a_torn_metrics_line(tmp_path):
    run = RunWriter(shutil.copytree(BEFORE, tmp_path / "run"))
    [metrics] = run.metrics()
    for step in (2, 3):
        for rollout in run.rollouts(1):
            run.record(rollout.record.model_copy(update={"step": step}))
        run.append_metrics(metrics.model_copy(update={"step": step}))
    with run.metrics_path.open("a") as out:
        out.write('{"step": 4, "rollo')
    run.trim_after(2)
    assert run.steps() == [1, 2] and [m.step for m in run.metrics()] == [1, 2]
    assert run.metrics_path.read_text().endswith("}\n")


def test_the_documented_fields_are_the_records_fields():
    """Each JSON example in docs/run-directory.md names exactly the fields of its record."""
    examples = dict(re.findall(r"## `([\w.-]+)`.*?```json\n(.*?)```", DOC.read_text(), re.S))
    assert _top_level_keys(examples["rollout-NN.json"]) == list(RolloutRecord.model_fields)
    assert _top_level_keys(examples["metrics.jsonl"]) == list(StepMetrics.model_fields)
    plan_line = next(line for line in DOC.read_text().splitlines() if line.strip().startswith("run.json"))
    assert all(name in plan_line for name in RunPlan.model_fields), plan_line


def _with_png(record: RolloutRecord, png: str):
    render = record.evaluation.render.model_copy(update={"png_base64": png})
    return record.evaluation.model_copy(update={"render": render})


def _top_level_keys(example: str) -> list[str]:
    """The keys of the example's outer object, in order (nested objects are skipped)."""
    keys, depth = [], 0
    for token in re.finditer(r'"(\w+)"\s*:|[{}]', re.sub(r"//.*", "", example)):
        if token.group(0) in "{}":
            depth += 1 if token.group(0) == "{" else -1
        elif depth == 1:
            keys.append(token.group(1))
    return keys

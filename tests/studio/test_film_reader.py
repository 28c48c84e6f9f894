"""Reading a run directory while the trainer writes it: whole files only, new rollouts seen at once."""

import json
import shutil

from watercolour_shared.run_dir import RunReader


def test_a_rollout_renamed_into_a_step_is_seen_by_the_next_read(film_copy):
    run = RunReader(film_copy)
    step = run.steps()[-1]
    before = run.rollouts(step)
    folder = run.step_dir(step)
    for suffix in ("png", "js"):
        shutil.copyfile(folder / f"rollout-00.{suffix}", folder / f".rollout-99.{suffix}.partial")
    record = before[0].record.model_copy(update={"index": 99})
    (folder / ".rollout-99.json.partial").write_text(json.dumps(record.as_json()))
    assert len(run.rollouts(step)) == len(before)  # a file still being written is not a rollout
    for suffix in ("json", "png", "js"):
        (folder / f".rollout-99.{suffix}.partial").rename(folder / f"rollout-99.{suffix}")
    after = run.rollouts(step)
    assert [r.record.index for r in after] == [r.record.index for r in before] + [99]
    assert after[-1].png == folder / "rollout-99.png"


def test_a_torn_last_metrics_line_is_skipped(film_copy):
    run = RunReader(film_copy)
    steps = [row.step for row in run.metrics()]
    with (film_copy / "metrics.jsonl").open("a") as out:
        out.write('{"step": 99, "reward_me')
    assert [row.step for row in run.metrics()] == steps


def test_records_match_the_files(film):
    run = RunReader(film)
    for rollout in run.all_rollouts():
        on_disk = json.loads(run.rollout_stem(rollout.record.step, rollout.record.index).with_suffix(".json").read_text())
        assert rollout.record.as_json() == on_disk
        assert (rollout.png is not None) == (on_disk["evaluation"]["render"]["status"] == "passed")


def test_only_film_files_can_be_served(film):
    run = RunReader(film)
    assert run.film_file(1, "rollout-00.js") is not None
    for name in ("../run.json", "rollout-00.json", "..%2frun.json", "rollout-00.js/../../run.json"):
        assert run.film_file(1, name) is None

"""--eval_steps: the config refuses what cannot work when it is parsed; the callback hands each checkpoint of an
eval step to the curve command in a separate low-priority process, one at a time, the newest waiting, through a
failure, and waits for them at the end (a small real script stands in for `watercolour curve` there); and a real
run leaves its curve."""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
import time
from pathlib import Path

import pytest
from transformers import TrainerState

from tests.trainer.conftest import SHORT_RUN, run_trainer
from watercolour_shared.run_dir import RunReader
from watercolour_shared.run_dir.curve import read_curve
from watercolour_trainer import config
from watercolour_trainer.held_out_curve import NICENESS, CurveCommand, HeldOutCurve

ENV = ["--env_url", "http://127.0.0.1:8000", "--use_cpu", "--model_name_or_path", "m", "--save_steps", "5"]

# The stand-in: records its arguments and niceness, then holds until RUN_DIR/release exists; fails for the
# checkpoint named in RUN_DIR/fail.
STAND_IN = """
import json, os, pathlib, sys, time
run_dir, checkpoint = pathlib.Path(sys.argv[1]), sys.argv[3]
def note(event):
    with open(run_dir / "calls.jsonl", "a") as out:
        out.write(json.dumps({"event": event, "argv": sys.argv[1:], "nice": os.nice(0)}) + "\\n")
note("start")
print("evaluating", checkpoint, flush=True)
while not (run_dir / "release").exists():
    if not run_dir.exists():  # its test is over
        sys.exit(1)
    time.sleep(0.01)
if (run_dir / "fail").is_file() and (run_dir / "fail").read_text() == checkpoint:
    print("boom", flush=True)
    sys.exit(3)
note("end")
"""


@pytest.mark.parametrize(
    "flags, refusal",
    [
        (["--eval_steps", "12"], "--eval_steps 12 does not fall on a saved checkpoint: it must be a multiple of --save_steps"),
        (["--eval_steps", "0.5"], "a whole number of steps"),
        (["--eval_strategy", "steps"], "TRL's own evaluation loop has no evaluation dataset"),
        (["--eval_steps", "10", "--subjects", "a blue iris"], "trained-on subjects are not held out: a blue iris"),
    ],
)
def test_what_an_eval_step_cannot_do_is_refused_when_the_config_is_parsed(flags, refusal, capsys):
    with pytest.raises(SystemExit):
        config.parse([*ENV, *flags])
    assert refusal in capsys.readouterr().err


def test_eval_steps_are_off_unless_asked_and_whole_steps_when_asked():
    assert config.parse(ENV).eval_steps is None and config.parse([*ENV, "--eval_steps", "0"]).eval_steps is None
    assert config.parse([*ENV, "--eval_steps", "10"]).eval_steps == 10


@pytest.fixture
def run_dir(tmp_path) -> Path:
    for step in range(1, 8):
        (tmp_path / "checkpoints" / f"checkpoint-{step}").mkdir(parents=True)
    return tmp_path


@pytest.fixture
def command(tmp_path_factory, run_dir) -> CurveCommand:
    script = tmp_path_factory.mktemp("stand-in") / "curve.py"
    script.write_text(STAND_IN)
    return CurveCommand(run_dir, "http://127.0.0.1:9", judge="offline", samples=1, program=(sys.executable, str(script)))


def calls(run_dir: Path) -> list[tuple[str, str]]:
    lines = (run_dir / "calls.jsonl").read_text().splitlines() if (run_dir / "calls.jsonl").exists() else []
    return [(call["event"], call["argv"][2]) for call in map(json.loads, lines)]


def wait_for(condition, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def saved(curve: HeldOutCurve, step: int, last: int) -> None:
    curve.on_save(None, TrainerState(global_step=step, max_steps=last), None)


def test_each_eval_step_is_evaluated_one_at_a_time_the_newest_waiting_and_the_end_waits_for_them(run_dir, command, caplog):
    caplog.set_level(logging.INFO, logger="watercolour_trainer.held_out_curve")
    curve = HeldOutCurve(command, eval_steps=2)
    ending = threading.Thread(target=curve.on_train_end, args=(None, None, None), daemon=True)
    try:
        for step in range(1, 8):  # saves every step; 2, 4, 6 are eval steps and 7 the last
            saved(curve, step, last=7)
            if step == 2:
                wait_for(lambda: calls(run_dir) == [("start", "checkpoint-2")])
        assert calls(run_dir) == [("start", "checkpoint-2")]  # every save returned while that evaluation was held
        ending.start()
        wait_for(lambda: "waiting for the evaluation of checkpoint-2 and checkpoint-7" in caplog.text)
        assert ending.is_alive()
    finally:
        (run_dir / "release").touch()
    ending.join(60)
    assert not ending.is_alive()

    assert calls(run_dir) == [(event, name) for name in ("checkpoint-2", "checkpoint-7") for event in ("start", "end")]
    recorded = [json.loads(line) for line in (run_dir / "calls.jsonl").read_text().splitlines()]
    options = "--checkpoint checkpoint-2 --env-url http://127.0.0.1:9 --judge offline --samples 1"
    assert recorded[0]["argv"] == [str(run_dir), *options.split()]
    assert {call["nice"] for call in recorded} == {min(19, os.nice(0) + NICENESS)}
    assert "checkpoint-4 is not evaluated, checkpoint-6 is newer" in caplog.text
    assert "checkpoint-6 is not evaluated, checkpoint-7 is newer" in caplog.text
    assert "evaluating checkpoint-7" in (run_dir / "logs" / "curve-checkpoint-7.log").read_text()


def test_a_failed_evaluation_is_logged_and_the_next_one_still_runs(run_dir, command, caplog):
    caplog.set_level(logging.INFO, logger="watercolour_trainer.held_out_curve")
    (run_dir / "release").touch()
    (run_dir / "fail").write_text("checkpoint-2")
    curve = HeldOutCurve(command, eval_steps=2)
    saved(curve, 2, last=4)
    wait_for(lambda: "the evaluation of checkpoint-2 failed (exit 3)" in caplog.text)
    saved(curve, 4, last=4)
    curve.on_train_end(None, None, None)
    assert calls(run_dir) == [("start", "checkpoint-2"), ("start", "checkpoint-4"), ("end", "checkpoint-4")]
    assert "boom" in (run_dir / "logs" / "curve-checkpoint-2.log").read_text()
    assert "checkpoint-4 evaluated" in caplog.text


def test_a_run_with_eval_steps_leaves_its_curve_when_the_trainer_exits(tmp_path, full_reward_env_url, tiny_policy):
    """The real launch script and the real `watercolour curve`: one GRPO step, its checkpoint evaluated on two held-out
    subjects, one painting each, by the offline judge, before the trainer exits."""
    subjects = tmp_path / "held-out.txt"
    subjects.write_text("a blue iris\na lighthouse on a cliff\n")
    finished = run_trainer(
        "--env_url", full_reward_env_url, "--model_name_or_path", str(tiny_policy), "--use_peft",
        "--lora_target_modules", "all-linear", "--max_steps", "1", "--save_steps", "1", "--report_to", "none", *SHORT_RUN,
        "--eval_steps", "1", "--eval_judge", "offline", "--eval_subjects", str(subjects), "--eval_samples", "1",
        "--output_dir", str(tmp_path / "run"),
    )  # fmt: skip
    assert finished.returncode == 0, finished.stderr[-3000:]
    waited = finished.stderr.index("held-out curve: waiting for the evaluation of checkpoint-1 before the trainer exits")
    assert "held-out curve: checkpoint-1 evaluated" in finished.stderr[waited:]
    curve = read_curve(tmp_path / "run")
    assert [(point.step, point.checkpoint) for point in curve.points] == [(1, "checkpoints/checkpoint-1")]
    assert (curve.samples, curve.subjects.count) == (1, 2)
    assert RunReader(tmp_path / "run").plan().eval_steps == 1
    assert (tmp_path / "run" / "logs" / "curve-checkpoint-1.log").read_text()

"""The demo end to end, shortened (a small warm start, two GRPO steps of four rollouts), against the real
local stack: Redis, the heuristic scorer and the environment with Chromium, through real HTTP. Then
Ctrl-C in the middle of a run: everything the demo started must stop."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import psutil
import pytest
from PIL import Image

from tests.conftest import ROOT
from watercolour_harness.processes import free_port
from watercolour_harness.stack import LocalStack

SHORT_DEMO = ("--steps", "2", "--group-size", "4", "--model-size", "small", "--eval-samples", "1")
# The warm start learns one sketch by heart: its replies pass the gate after a minute of training.
WARM_START = ("--warm-start-sketches", "1", "--warm-start-epochs", "800")
STACK_AND_TRAINER = ("watercolour_env.server.app", "watercolour_scorer.server", "chromium", "watercolour_grpo.py")
SERVICE_URL = re.compile(r"(?:environment|scorer) (http://127\.0\.0\.1:\d+)")


@dataclass
class Watched:
    process: psutil.Process
    command: str


@dataclass
class DemoRun:
    returncode: int
    output: str
    run_dir: Path
    started: dict[int, Watched]  # every process seen under the demo while it ran


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory) -> Path:
    """One warm start for both tests: the second finds it cached."""
    return tmp_path_factory.mktemp("warm-start-cache")


def launch(root: Path, cache_dir: Path, *more: str) -> tuple[subprocess.Popen, Path]:
    demo = [sys.executable, "-m", "watercolour_demo", *SHORT_DEMO, *WARM_START, *more]
    command = [*demo, "--cache-dir", str(cache_dir), "--run-dir", str(root / "run")]
    # HF_HOME: trackio's local database stays in the test's folder.
    env = {**os.environ, "HF_HOME": str(root / "hf"), "PYTHONUNBUFFERED": "1"}
    output = root / "demo-output.txt"
    with output.open("w") as out:
        return subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT, env=env), output


def watch(demo: subprocess.Popen, seen: dict[int, Watched]) -> None:
    """Adds every process now under the demo, with its command line."""
    try:
        children = psutil.Process(demo.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return
    for child in children:
        if child.pid not in seen:
            with contextlib.suppress(psutil.NoSuchProcess):
                seen[child.pid] = Watched(child, " ".join(child.cmdline()))


def still_running(seen: dict[int, Watched]) -> list[str]:
    alive = []
    for watched in seen.values():
        try:
            if watched.process.is_running() and watched.process.status() != psutil.STATUS_ZOMBIE:
                alive.append(f"{watched.process.pid} {watched.command[:120]}")
        except psutil.NoSuchProcess:
            pass
    return alive


def started_all_parts(seen: dict[int, Watched]) -> bool:
    commands = [watched.command for watched in seen.values()]
    return all(any(part in command for command in commands) for part in STACK_AND_TRAINER)


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory, cache_dir) -> DemoRun:
    root = tmp_path_factory.mktemp("demo")
    demo, output = launch(root, cache_dir)
    seen: dict[int, Watched] = {}
    deadline = time.monotonic() + 600
    while demo.poll() is None and time.monotonic() < deadline:
        watch(demo, seen)
        time.sleep(0.5)
    if demo.poll() is None:
        demo.send_signal(signal.SIGINT)
        demo.wait(60)
        pytest.fail("the shortened demo took over 10 minutes")
    return DemoRun(demo.returncode, output.read_text(), root / "run", seen)


def test_the_demo_runs_the_whole_loop_and_leaves_nothing_running(demo_run):
    assert demo_run.returncode == 0, demo_run.output[-3000:]
    assert started_all_parts(demo_run.started)
    assert still_running(demo_run.started) == []
    urls = SERVICE_URL.findall(demo_run.output)
    assert len(urls) == 2
    for url in urls:
        with pytest.raises(httpx.TransportError):
            httpx.get(f"{url}/health", timeout=2)


def test_metrics_for_every_step(demo_run):
    rows = [json.loads(line) for line in (demo_run.run_dir / "metrics.jsonl").read_text().splitlines()]
    assert [row["step"] for row in rows] == [1, 2]
    for row in rows:
        assert row["rollouts"] == 4 and row["dropped"] == 0
        assert 0.0 <= row["reward_mean"] <= 1.0 and 0.0 <= row["gate_pass_rate"] <= 1.0
        assert set(row["timings"]) == {"generation_s", "render_s", "scoring_s", "training_s", "compile_s"}
        assert row["timings"]["compile_s"] == 0 and row["compiled_graphs"] == 0  # no CUDA: generation is not compiled


def test_the_film_holds_every_rollout_and_its_paintings_open(demo_run):
    paintings = 0
    for step in (1, 2):
        folder = demo_run.run_dir / "film" / f"step-{step:06d}"
        for index in range(4):
            record = json.loads((folder / f"rollout-{index:02d}.json").read_text())
            assert record["step"] == step and isinstance(record["reward"], float)
            assert (folder / f"rollout-{index:02d}.js").read_text()
            png = folder / f"rollout-{index:02d}.png"
            render = record["evaluation"]["render"]
            # A render that failed after painting (a blank canvas, an error late in draw) keeps its picture too.
            assert png.exists() == (render["paint_fraction"] is not None)
            assert png.exists() or render["status"] == "failed"
            if png.exists():
                with Image.open(png) as image:
                    assert image.size == (600, 600)
                paintings += 1
    assert paintings > 0, "the warm start painted nothing in 8 rollouts"


def test_the_summary_compares_the_thirds_and_points_at_the_paintings(demo_run):
    summary = json.loads((demo_run.run_dir / "summary.json").read_text())
    assert [row["step"] for row in summary["steps"]] == [1, 2]
    # The one sketch the warm start learnt has a look, and the rollouts that kept its first lines chose it again.
    assert all(set(row["look"]) == {"zoom", "wash", "glaze"} for row in summary["steps"])
    assert any(value is not None for row in summary["steps"] for value in row["look"].values())
    assert summary["first_third"]["steps"] == [1] and summary["last_third"]["steps"] == [2]
    assert summary["last_third_better"] in (True, False)
    gain = summary["gain"]  # per rollout, with its standard error: 4 rollouts a third here
    assert gain["standard_error"] >= 0 and gain["clear"] == (gain["reward"] > 2 * gain["standard_error"])
    assert Path(summary["best_painting"]).exists()
    assert summary["warm_start_static_gate"]["samples"] == 16
    assert summary["peak_memory_gb"] > 0.1  # the trainer alone holds more than that
    text = (demo_run.run_dir / "summary.txt").read_text()
    assert "first third" in text and "last third" in text and text in demo_run.output


def test_the_demo_ends_with_its_final_policy_against_its_warm_start_on_held_out_subjects(demo_run):
    evaluation = json.loads((demo_run.run_dir / "summary.json").read_text())["evaluation"]
    assert evaluation["subjects"]["name"] == "eval-subjects-demo-v1" and evaluation["subjects"]["count"] == 8
    assert evaluation["samples"] == 1 and evaluation["judge"] == "offline-judge" and evaluation["held_out_judge"] is False
    compared = evaluation["wins"] + evaluation["losses"] + evaluation["ties"]
    assert compared + evaluation["left_out"] == 8 and evaluation["left_out"] == 0
    assert (demo_run.run_dir / "eval" / "eval.json").exists() and (demo_run.run_dir / "eval" / "index.html").exists()
    assert "final policy against its warm start" in (demo_run.run_dir / "summary.txt").read_text()


def test_ctrl_c_stops_everything_the_demo_started(tmp_path, cache_dir):
    demo, output = launch(tmp_path, cache_dir)
    seen: dict[int, Watched] = {}
    deadline = time.monotonic() + 400
    # Interrupt once the stack and the trainer are all up.
    while not started_all_parts(seen):
        assert demo.poll() is None, output.read_text()[-3000:]
        assert time.monotonic() < deadline, "the stack and the trainer never all started"
        watch(demo, seen)
        time.sleep(0.5)
    demo.send_signal(signal.SIGINT)
    assert demo.wait(90) == 130, output.read_text()[-3000:]
    assert still_running(seen) == []
    assert "interrupted" in output.read_text()


def test_ctrl_c_during_the_warm_start_leaves_no_half_built_policy(tmp_path):
    cache = tmp_path / "cache"
    demo, output = launch(tmp_path, cache)
    seen: dict[int, Watched] = {}
    deadline = time.monotonic() + 120
    while not list(cache.glob(".warm-start-*")):  # the build folder, renamed only when the warm start is complete
        assert demo.poll() is None, output.read_text()[-3000:]
        assert time.monotonic() < deadline, "the warm start never began"
        watch(demo, seen)
        time.sleep(0.2)
    watch(demo, seen)
    demo.send_signal(signal.SIGINT)
    assert demo.wait(60) == 130, output.read_text()[-3000:]
    assert any("watercolour_demo.prepare" in watched.command for watched in seen.values())
    assert still_running(seen) == []
    assert list(cache.iterdir()) == []


def test_with_env_url_the_demo_trains_against_that_environment_and_starts_none(tmp_path, cache_dir):
    held_out = tmp_path / "two-held-out.txt"
    held_out.write_text("# the closing evaluation's own set\na lilac sweet pea\na white magnolia\n")
    with LocalStack(tmp_path / "stack-logs") as stack:  # stands in for the compose CPU profile's env-cpu
        more = ("--env-url", stack.env_url, "--steps", "1", "--eval-subjects", str(held_out))
        demo, output = launch(tmp_path, cache_dir, *more)
        seen: dict[int, Watched] = {}
        while demo.poll() is None:
            watch(demo, seen)
            time.sleep(0.5)
        text = output.read_text()
        assert demo.returncode == 0, text[-3000:]
        assert f"the environment at {stack.env_url}" in text and "local services" not in text
        commands = " ".join(watched.command for watched in seen.values())
        assert "watercolour_grpo.py" in commands and "watercolour_env.server.app" not in commands
        (row,) = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
        assert row["rollouts"] == 4 and row["dropped"] == 0
        evaluation = json.loads((tmp_path / "run" / "summary.json").read_text())["evaluation"]
        assert evaluation["subjects"]["name"] == "two-held-out" and evaluation["subjects"]["count"] == 2


def test_an_environment_url_that_does_not_answer_is_refused_before_the_warm_start(tmp_path):
    cache = tmp_path / "cache"
    demo, output = launch(tmp_path, cache, "--env-url", f"http://127.0.0.1:{free_port()}")
    assert demo.wait(60) == 1
    assert "is not ready (GET /ready)" in output.read_text()
    assert not cache.exists()  # refused before any warm start was built


@pytest.mark.parametrize(
    ("subjects", "said"),
    [
        ("a golden marigold\na white magnolia\n", "trained-on subjects are not held out: a golden marigold"),
        (None, "cannot read subjects from"),
    ],
)
def test_a_closing_eval_set_that_cannot_measure_held_out_painting_is_refused_before_anything_starts(tmp_path, subjects, said):
    held_out = tmp_path / "held-out.txt"
    if subjects is not None:
        held_out.write_text(subjects)
    (tmp_path / "run").mkdir()
    kept = tmp_path / "run" / "earlier.txt"
    kept.write_text("an earlier run")
    demo, output = launch(tmp_path, tmp_path / "cache", "--eval-subjects", str(held_out))
    assert demo.wait(60) == 2
    (line,) = output.read_text().strip().splitlines()  # one line, no traceback
    assert line.startswith("--eval-subjects: ") and said in line
    assert kept.exists() and not (tmp_path / "cache").exists()

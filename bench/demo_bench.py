"""Demo benchmark: `make demo` run twice, as a new user meets it, against its targets. Prints one JSON
document and writes it under bench/results/.

The first run starts from an empty warm-start cache (the tokenizer and the tiny policy are built), the
second finds them cached. Each run gets a GRPO seed of its own, drawn from the clock: a repeated seed
repeats every rollout, whose renders and scores an earlier run would have left in Redis. Each run
reports its wall time, its peak memory (PSS of the demo and everything it started) and what GRPO did:
the mean reward of the first third of the steps against the last third, with the gain's standard error,
the gate pass rate and the share of the rewards' favourite composition.

    python bench/demo_bench.py [--out DIR] [-- DEMO OPTIONS]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from watercolour_shared.run_dir.layout import RunLayout

BENCH_DIR = Path(__file__).resolve().parent
TARGETS = {"from_nothing_s": 15 * 60, "cached_s": 10 * 60, "peak_memory_gb": 4.0}


def demo_run(cache_dir: Path, run_dir: Path, seed: int, options: list[str]) -> dict:
    command = [sys.executable, "-m", "watercolour_demo", "--cache-dir", str(cache_dir), "--run-dir", str(run_dir)]
    command += ["--seed", str(seed), *options]
    subprocess.run(command, check=True)
    summary = json.loads(RunLayout(run_dir).summary_json.read_text())
    return {
        "seed": seed,
        "wall_s": summary["wall_s"],
        "peak_memory_gb": summary["peak_memory_gb"],
        "first_third": summary["first_third"],
        "last_third": summary["last_third"],
        "gain": summary["gain"],
        "reward_per_step": [row["reward_mean"] for row in summary["steps"]],
        "warm_start_static_gate": summary["warm_start_static_gate"],
    }


def main(options: list[str]) -> dict:
    with tempfile.TemporaryDirectory(prefix="demo-bench-") as scratch:
        cache = Path(scratch) / "cache"
        seed = int(time.time())
        names = ("from_nothing", "cached")
        runs = {name: demo_run(cache, Path(scratch) / name, seed + i, options) for i, name in enumerate(names)}
    met = {
        "from_nothing_s": runs["from_nothing"]["wall_s"] <= TARGETS["from_nothing_s"],
        "cached_s": runs["cached"]["wall_s"] <= TARGETS["cached_s"],
        "peak_memory_gb": max(run["peak_memory_gb"] for run in runs.values()) <= TARGETS["peak_memory_gb"],
        "clear_gain": all(run["gain"] is not None and run["gain"]["clear"] for run in runs.values()),
    }
    return {
        "benchmark": "demo",
        "when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
        "demo_options": options,
        "targets": TARGETS,
        "met": met,
        "runs": runs,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=BENCH_DIR / "results")
    parser.add_argument("demo_options", nargs="*", help="passed on to python -m watercolour_demo (after --)")
    arguments = parser.parse_args()
    result = main(arguments.demo_options)
    arguments.out.mkdir(parents=True, exist_ok=True)
    path = arguments.out / f"demo-{result['when'][:10]}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))

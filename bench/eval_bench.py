"""Eval benchmark: what `watercolour eval` costs on this machine, and where the time goes. Prints one JSON
document and writes it under bench/results/.

The default held-out set (24 subjects) x 4 samples x 2 policies, cold: a fresh seed, so no render, score or
verdict is in the cache. The stack is the demo's (Redis, the heuristic scorer, the environment with the
offline judge on the bundled pool, 2 browsers). Both policies are OpenAI-compatible endpoints served here
that answer at once with the demo's generated sketches (B's from other seeds), so the time measured is
eval's own: rendering and scoring through the environment, judging in both orders, diversity and the page.
A local policy adds its own generation time, which eval.json reports as `write A`/`write B`; eval renders
one subject while the next is written, so that time overlaps the rendering.
Then the same eval again, to show a rerun's cost (every reply, render and verdict from the cache).

    python bench/eval_bench.py [--samples N] [--subjects FILE]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from watercolour_harness import record
from watercolour_harness.scripted_http import ScriptedServer
from watercolour_harness.sketchgen import as_reply, generate_sketch
from watercolour_harness.sketchgen.looks import Look
from watercolour_harness.stack import LocalStack
from watercolour_shared.prompts import subject_of
from watercolour_shared.subjects import EVAL_SUBJECTS_FILE

TARGET_S = 10 * 60


def sketch_server(seed_offset: int, look: Look | None = None) -> ScriptedServer:
    """A chat-completions endpoint whose answer is the demo's sketch of the asked subject and seed (in `look`, else
    the one the seed draws)."""

    def answer(request: dict) -> dict:
        subject = subject_of(request["messages"][-1]["content"])
        seed = request["seed"] + seed_offset
        reply = as_reply(generate_sketch(subject, seed, look=look), subject, seed)
        return {"object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}}]}

    return ScriptedServer([(200, answer, 0)]).start()


def timed_eval(
    env_url: str, a: str, b: str, out: Path, seed: int, samples: int, subjects: Path, *flags: str
) -> tuple[float, dict]:
    command = [str(Path(sys.executable).parent / "watercolour"), "eval", "--a", a, "--b", b, "--env-url", env_url]
    command += ["--judge", "offline", "--seed", str(seed), "--samples", str(samples), "--subjects", str(subjects)]
    command += ["--out", str(out), "--quiet", *flags]
    started = time.perf_counter()
    subprocess.run(command, check=True)
    return time.perf_counter() - started, json.loads((out / "eval.json").read_text())


def main(samples: int, subjects: Path) -> dict:
    seed = random.randrange(10**6, 10**9)  # cold: nothing in the cache was rendered or judged with it
    servers = [sketch_server(0), sketch_server(7919)]
    a, b = (f"{server.url}/v1#scripted" for server in servers)
    with tempfile.TemporaryDirectory(prefix="eval-bench-") as scratch, LocalStack(Path(scratch) / "logs") as stack:
        cold_s, cold = timed_eval(stack.env_url, a, b, Path(scratch) / "eval", seed, samples, subjects)
        warm_s, _ = timed_eval(stack.env_url, a, b, Path(scratch) / "eval", seed, samples, subjects)
    for server in servers:
        server.stop()
    paintings = 2 * cold["subjects"]["count"] * samples
    return {
        **record.header("eval"),
        "subjects": cold["subjects"],
        "samples": samples,
        "paintings": paintings,
        "cold_s": round(cold_s, 1),
        "cold_s_per_painting": round(cold_s / paintings, 2),
        "rerun_s": round(warm_s, 1),
        "where_the_time_went_s": cold["seconds"],
        "head_to_head": cold["head_to_head"],
        "gate_pass_rate": {label: policy["gate_pass_rate"]["mean"] for label, policy in cold["policies"].items()},
        "target_s": TARGET_S,
        "met": cold_s <= TARGET_S,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--subjects", type=Path, default=EVAL_SUBJECTS_FILE)
    args = parser.parse_args()
    record.write(main(args.samples, args.subjects))

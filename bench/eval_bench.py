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
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import record

from watercolour_demo.sketchgen import as_reply, generate_sketch
from watercolour_demo.sketchgen.looks import Look
from watercolour_demo.stack import LocalStack
from watercolour_shared.prompts import subject_of
from watercolour_shared.subjects import EVAL_SUBJECTS_FILE

TARGET_S = 10 * 60


def sketch_server(seed_offset: int, look: Look | None = None) -> ThreadingHTTPServer:
    """A chat-completions endpoint whose answer is the demo's sketch of the asked subject and seed (in `look`, else
    the one the seed draws)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the http.server API
            self._send({"object": "list", "data": [{"id": "sketchgen"}]})

        def do_POST(self):  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            subject = subject_of(body["messages"][-1]["content"])
            seed = body["seed"] + seed_offset
            reply = as_reply(generate_sketch(subject, seed, look=look), subject, seed)
            self._send(
                {"object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}}]}
            )

        def _send(self, answer: dict) -> None:
            payload = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            """Quiet."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


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
    a, b = (f"http://127.0.0.1:{server.server_address[1]}/v1#sketchgen" for server in servers)
    with tempfile.TemporaryDirectory(prefix="eval-bench-") as scratch, LocalStack(Path(scratch) / "logs") as stack:
        cold_s, cold = timed_eval(stack.env_url, a, b, Path(scratch) / "eval", seed, samples, subjects)
        warm_s, _ = timed_eval(stack.env_url, a, b, Path(scratch) / "eval", seed, samples, subjects)
    for server in servers:
        server.shutdown()
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

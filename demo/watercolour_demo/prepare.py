"""Stages 1 and 2 of the demo, in a child process: the warm start (built, or found in the cache) and a look
at it through the static gate. Torch and the tokenizer trainer hold over a gigabyte here; ending the
process returns it all before the stack and the trainer start.

    python -m watercolour_demo.prepare REQUEST_JSON RESULT_PATH
"""

from __future__ import annotations

import json
import math
import signal
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

from watercolour_demo.progress import clock, say
from watercolour_demo.training import GrpoSettings
from watercolour_demo.warm_start import WarmStartConfig
from watercolour_harness.processes import end_process_tree
from watercolour_shared.sampling import Sampling

CHECK_SAMPLES = 16


def prepare(warm: WarmStartConfig, cache_dir: Path, grpo: GrpoSettings, started: float, result: Path) -> dict:
    """Runs the child and returns what it found: the warm start's folder and record, the completion length, the check.
    The check samples as GRPO will (`grpo`'s temperature and seed)."""
    request = {"warm": asdict(warm), "cache_dir": str(cache_dir), "max_completion_length": grpo.max_completion_length}
    request |= {"temperature": grpo.temperature, "seed": grpo.seed, "started": started}
    child = subprocess.Popen(
        [sys.executable, "-m", "watercolour_demo.prepare", json.dumps(request), str(result)], start_new_session=True
    )
    try:
        code = child.wait()
    finally:
        end_process_tree(child)
    if code != 0:
        raise RuntimeError(f"the warm start failed (exit {code})")
    return json.loads(result.read_text())


def fitted_length(record: dict) -> int:
    """Room for the warm start's longest reply and a quarter more, in whole 64-token blocks."""
    return 64 * math.ceil(record["reply_tokens"]["max"] * 1.25 / 64)


def main(request: dict, result: Path) -> None:
    from watercolour_demo.policy_check import check_policy
    from watercolour_demo.warm_start import cached_warm_start

    warm = WarmStartConfig(**{**request["warm"], "subjects": tuple(request["warm"]["subjects"])})
    passes = f" x {warm.epochs}" if warm.epochs > 1 else ""
    say(f"[1/5] warm start: a {warm.size} policy trained on {warm.sketches}{passes} generated sketches ({request['cache_dir']})")
    folder, record = cached_warm_start(warm, Path(request["cache_dir"]), on_step=_progress(request["started"]))
    say(f"      {folder}: {record['parameters'] / 1e6:.1f} M parameters, loss {record['loss']['last']:.2f}")
    length = request["max_completion_length"] or fitted_length(record)

    say(f"[2/5] {CHECK_SAMPLES} replies of the warm start through the static gate")
    sampling = Sampling(temperature=request["temperature"], max_new_tokens=length)  # as GrpoSettings.sampling
    check = check_policy(folder, warm.subjects, CHECK_SAMPLES, sampling, request["seed"])
    violations = dict(check.violations)
    say(f"      {check.passed}/{check.samples} pass; {check.truncated} ran out of tokens; violations {violations or 'none'}")
    found = {"folder": str(folder), "record": record, "max_completion_length": length}
    found["static_gate"] = {"samples": check.samples, "passed": check.passed, "violations": violations}
    result.write_text(json.dumps(found, indent=2))


def _progress(started: float):
    began = time.monotonic()

    def report(step: int, steps: int, loss: float) -> None:
        if step % max(1, steps // 10) == 0 or step == steps:
            left = (time.monotonic() - began) / step * (steps - step)
            say(f"      step {step}/{steps}  loss {loss:.2f}  elapsed {clock(time.monotonic() - started)}  left ~{clock(left)}")

    return report


def _stop(signum, frame):
    raise KeyboardInterrupt  # the parent ends this process with SIGTERM; an unfinished warm start is removed


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    try:
        main(json.loads(sys.argv[1]), Path(sys.argv[2]))
    except KeyboardInterrupt:
        sys.exit(130)

"""The container stack, measured as a user meets it: prints one JSON document and writes it under bench/results/.

Measures the set-up a bare machine needs (engine, Compose, local base images: near 0 where present), a cold
build of the CPU profile (`--no-cache`: every layer of our images rebuilt), the stack tests with their own
time from `up` to all healthy and each test's time, a rebuild with nothing changed, and every image's size.
About 15 minutes on a 2-core machine; it uses the same project name and teardown as `make stack-test`.
`--gpu-images` instead builds the GPU profile's images (they cannot start without a GPU) and reports each
one's build time, with the layers this machine already has, and its size.

    python bench/stack_bench.py [--gpu-images]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from watercolour_harness import record

ROOT = Path(__file__).resolve().parent.parent
STACK_ENV = "source deploy/docker/stack-env.sh && "


def timed(command: str, env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(["bash", "-c", command], cwd=ROOT, env=env, check=True)
    return round(time.perf_counter() - started, 1)


def shell(command: str) -> str:
    return subprocess.run(["bash", "-c", STACK_ENV + command], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def image_sizes() -> dict[str, float]:
    """The CPU profile's images (and the local bases they stand on), in GB as `docker image ls` counts them."""
    names = set(shell("docker compose config --images").split())
    names |= {shell("echo $WATERCOLOUR_BASE_IMAGE").strip(), shell("echo $WATERCOLOUR_REDIS_IMAGE").strip()}
    sizes = {}
    for name in sorted(names):
        size = shell(f"docker image inspect -f '{{{{.Size}}}}' {name} 2>/dev/null || true").strip()
        if size:
            sizes[name] = round(int(size) / 1e9, 2)
    return sizes


def test_times(junit: Path) -> dict[str, float]:
    times = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        times[f"{case.get('classname').rsplit('.', 1)[-1]}::{case.get('name')}"] = round(float(case.get("time")), 1)
    return times


def cpu_stack() -> dict:
    report = {"what": "the CPU profile as containers (make stack-test), on this machine"}
    report["set_up_s"] = timed("bash deploy/docker/engine.sh")
    with tempfile.TemporaryDirectory() as scratch:
        timings, junit = Path(scratch) / "timings.jsonl", Path(scratch) / "junit.xml"
        env = {**os.environ, "WATERCOLOUR_STACK_TIMINGS": str(timings), "WATERCOLOUR_STACK_BUILD_ARGS": "--no-cache"}
        report["stack_test_s"] = timed(f"bash deploy/docker/stack-test.sh --junitxml={junit}", env)
        phases = {row["phase"]: row["seconds"] for row in map(json.loads, timings.read_text().splitlines())}
        report["cold_build_s"] = phases["build"]
        report["up_to_all_healthy_s"] = phases["up to all healthy"]
        report["stack_tests_s"] = phases["tests"]
        report["tests"] = test_times(junit)
    report["rebuild_nothing_changed_s"] = timed(STACK_ENV + "docker compose build --quiet")
    report["image_gb"] = image_sizes()
    return report


def gpu_images() -> dict:
    """Each GPU-profile service's image, built on its own (layers shared with the CPU profile's are reused)."""
    report = {"what": "the GPU profile's images, built on this machine (no GPU: they are not started)"}
    report["set_up_s"] = timed("bash deploy/docker/engine.sh")
    gpu = STACK_ENV + "export COMPOSE_PROFILES=gpu && "
    services = shell("export COMPOSE_PROFILES=gpu && docker compose config --services").split()
    report["build_s"] = {service: timed(gpu + f"docker compose build --quiet {service}") for service in services}
    images = shell("export COMPOSE_PROFILES=gpu && docker compose config --images").split()
    report["image_gb"] = {name: round(int(shell(f"docker image inspect -f '{{{{.Size}}}}' {name}")) / 1e9, 2) for name in images}
    return report


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpu-images", action="store_true", help="build and size the GPU profile's images instead")
    args = parser.parse_args()
    report = gpu_images() if args.gpu_images else cpu_stack()
    record.write({**record.header("stack-gpu-images" if args.gpu_images else "stack", node=platform.node()), **report})


if __name__ == "__main__":
    main()

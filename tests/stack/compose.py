"""The running compose project that `make stack-test` brought up, seen from outside as a user sees it:
the published ports and the `docker` command. Nothing here starts a process of the project on the host."""

from __future__ import annotations

import io
import json
import os
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

ENV_SERVICE = "env-cpu"
# The gallery of the runs volume's newest run, and the port it serves in its container.
GALLERY_SERVICE, GALLERY_PORT = "gallery", 8765


def docker(*args: str, timeout_s: float = 600, check: bool = True) -> str:
    done = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout_s, check=False)
    if check and done.returncode != 0:
        raise RuntimeError(f"docker {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return done.stdout


def compose(*args: str, timeout_s: float = 600, check: bool = True) -> str:
    """`docker compose` on the project under test (its name and profile come from stack-test.sh's environment)."""
    return docker("compose", *args, timeout_s=timeout_s, check=check)


@dataclass(frozen=True)
class Container:
    id: str
    service: str
    number: int

    def inspect(self) -> dict:
        return json.loads(docker("inspect", self.id))[0]

    def exec(self, *command: str, timeout_s: float = 120) -> str:
        return docker("exec", self.id, *command, timeout_s=timeout_s)

    @property
    def url(self) -> str:
        """The loopback address compose published for this replica's port 8000."""
        return self.published(8000)

    def published(self, port: int) -> str:
        """The address compose published for the container's `port`."""
        host_port = self.inspect()["NetworkSettings"]["Ports"][f"{port}/tcp"][0]
        return f"http://{host_port['HostIp']}:{host_port['HostPort']}"


def containers(service: str | None = None, every: bool = False) -> list[Container]:
    """The project's containers (running ones unless `every`), in replica order."""
    project = os.environ["COMPOSE_PROJECT_NAME"]
    filters = ["--filter", f"label=com.docker.compose.project={project}"]
    if service:
        filters += ["--filter", f"label=com.docker.compose.service={service}"]
    ids = docker("ps", "-q", *(["-a"] if every else []), *filters).split()
    found = []
    for item in json.loads(docker("inspect", *ids)) if ids else []:
        labels = item["Config"]["Labels"]
        number = int(labels["com.docker.compose.container-number"])
        found.append(Container(item["Id"], labels["com.docker.compose.service"], number))
    return sorted(found, key=lambda c: (c.service, c.number))


def runs_volume(into: Path) -> list[Path]:
    """The runs volume's demo runs, copied out through the demo's own image (the files belong to its user)."""
    command = ["docker", "compose", "run", "--rm", "--no-deps", "-T", "--entrypoint", "tar", "demo", "-C", "/runs", "-c", "."]
    archive = subprocess.run(command, capture_output=True, check=True, timeout=300).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return sorted(into.glob("demo-*"))


def network() -> str:
    return f"{os.environ['COMPOSE_PROJECT_NAME']}_default"


# The serving part of the CPU profile, with two environment replicas sharing Redis, and the runs' gallery.
SERVING = ("--scale", f"{ENV_SERVICE}=2", "redis", "scorer-heuristic", ENV_SERVICE, GALLERY_SERVICE)


def up(timeout_s: float = 600) -> None:
    """Bring the serving stack up, or back to two healthy replicas after a fault test."""
    compose("up", "--detach", "--wait", *SERVING, timeout_s=timeout_s)

"""The OpenEnv client installs without the server's packages, as OpenEnv's environments split client and server:
pip resolves `watercolour-env` alone to no Playwright or tree-sitter, and the client (OpenEnv's, TRL's and the
`watercolour` command's) drives a real server with those packages unimportable."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT

SERVER_ONLY = ("playwright", "tree_sitter", "tree_sitter_javascript", "psutil")

# A fresh interpreter whose first finder refuses every server-only package.
BLOCKED_RUN = f"""
import importlib.abc, sys

class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {SERVER_ONLY!r}:
            raise ImportError(f"the client imported {{name}}", name=name)

sys.meta_path.insert(0, Refuse())
from watercolour_env.tool_env import WatercolourToolEnv
from watercolour_shared.cli import main

url, sketch = sys.argv[1:3]
with WatercolourToolEnv(url) as env:
    env.reset(subject="a red poppy")
    print("painted", env.paint(open(sketch).read()), env.get_reward())
print("remote", main(["gate", sketch, "--env-url", url]))
print("local", main(["gate", sketch]))
"""


def resolved(*requirements: str) -> set[str]:
    """What pip would install for `requirements` into an empty environment (resolved from the index, installed nowhere)."""
    report = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet", "--report", "-", *requirements],
        capture_output=True, text=True, timeout=300, check=True, cwd=ROOT,
    )  # fmt: skip
    return {item["metadata"]["name"].lower().replace("_", "-") for item in json.loads(report.stdout)["install"]}


def test_the_client_resolves_without_the_servers_packages():
    client, server = resolved("./shared", "./services/env"), resolved("./shared", "./services/env[server]")
    for package in ("playwright", "tree-sitter", "tree-sitter-javascript"):
        assert package not in client and package in server


def test_the_client_drives_a_real_server_without_them(server_url):
    done = subprocess.run(
        [sys.executable, "-c", BLOCKED_RUN, server_url, str(ROOT / "examples" / "flower.js")],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    said = {line.split()[0]: line for line in done.stdout.splitlines() if line.startswith(("painted ", "remote ", "local "))}
    assert "passed the gate" in said["painted"] and float(said["painted"].split()[-1]) > 0
    assert said["remote"] == "remote 0"  # `watercolour gate --env-url`: the gate passed, through the server
    assert said["local"] == "local 2" and "pip install 'watercolour-env[server]'" in done.stderr  # a clear refusal

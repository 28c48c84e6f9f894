"""Studio installs without the environment: no studio module imports watercolour_env or what only the
environment needs (Playwright, tree-sitter, openenv), and its commands, calibration included, run
with those packages unimportable."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import requires

from tests.conftest import BUNDLED_POOL

ENV_ONLY = ("watercolour_env", "playwright", "tree_sitter", "tree_sitter_javascript", "openenv")

# Runs in a fresh interpreter: a finder first on sys.meta_path refuses every environment-only package.
BLOCKED_RUN = f"""
import importlib.abc, json, pkgutil, sys

class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {ENV_ONLY!r}:
            raise ImportError(f"studio imported {{name}}")

sys.meta_path.insert(0, Refuse())
import watercolour_studio
for module in pkgutil.walk_packages(watercolour_studio.__path__, "watercolour_studio."):
    __import__(module.name)
from watercolour_shared.cli import main, parser
commands = parser()._subparsers._group_actions[0].choices
print(json.dumps(sorted(commands)))
sys.exit(main(sys.argv[1:]))
"""


def test_studio_does_not_depend_on_the_environment_package():
    """Only its `revisions` extra (eval --revisions plays episodes through the environment's client) names it."""
    named = [dependency for dependency in requires("watercolour-studio") if dependency.startswith("watercolour-env")]
    assert named == ['watercolour-env; extra == "revisions"']


def test_studio_imports_and_calibrates_with_the_environment_unimportable(tmp_path):
    paintings = tmp_path / "paintings"
    paintings.mkdir()
    for image in sorted((BUNDLED_POOL / "images").glob("*.png"))[:2]:
        (paintings / image.name).write_bytes(image.read_bytes())
    done = subprocess.run(
        [sys.executable, "-c", BLOCKED_RUN, "pool", "calibrate", "--pool", str(BUNDLED_POOL), "--paintings", str(paintings),
         "--judge", "offline", "--json"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    commands, rows = done.stdout.split("\n", 1)
    assert {"gallery", "check-run", "pool"} <= set(json.loads(commands))
    assert "render" not in json.loads(commands)  # the environment's commands are absent, not broken
    assert all(row["judged"] == 2 for row in json.loads(rows))

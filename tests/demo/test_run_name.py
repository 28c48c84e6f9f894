"""trackio's name for a demo run holds its start time once, for the default run folder and for the container's."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from watercolour_demo.__main__ import trackio_run_name

ROOT = Path(__file__).resolve().parents[2]
TIMESTAMP = re.compile(r"\d{8}-\d{6}")


def container_run_dir(tmp_path: Path) -> Path:
    """The --run-dir demo/container-launch.sh hands the demo, caught by a `python` that prints its arguments."""
    (tmp_path / "python").write_text('#!/bin/sh\nprintf "%s\\n" "$@"\n')
    (tmp_path / "python").chmod(0o755)
    environment = {"PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}", "HF_HOME": str(tmp_path)}
    done = subprocess.run(
        ["sh", ROOT / "demo" / "container-launch.sh"], env=environment, capture_output=True, text=True, check=True
    )
    words = done.stdout.splitlines()
    return Path(words[words.index("--run-dir") + 1])


def test_the_containers_run_is_named_with_one_timestamp(tmp_path):
    name = trackio_run_name(container_run_dir(tmp_path))
    assert re.fullmatch(r"demo-\d{8}-\d{6}", name), name


def test_the_default_run_folder_gets_its_start_time_and_a_given_one_keeps_its_name():
    assert len(TIMESTAMP.findall(trackio_run_name(None))) == 1
    assert trackio_run_name(Path("runs/mine")) == "mine"

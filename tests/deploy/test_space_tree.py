"""What each Space builds from: its Dockerfile at the root, every file that Dockerfile copies beside it,
the README's front matter for a Docker Space on the service's port, and a priced hardware flavour."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from huggingface_hub import SpaceHardware

from tests.deploy import dockerfile
from watercolour_deploy.space_hardware import VCPUS, billed, hourly_now
from watercolour_deploy.space_tree import LAYOUTS, build_tree
from watercolour_env.settings import EnvSettings
from watercolour_scorer.settings import ScorerSettings

ROOT = Path(__file__).resolve().parents[2]
PORTS = {"env": EnvSettings.model_fields["port"].default, "scorer": ScorerSettings.model_fields["port"].default}


@pytest.mark.parametrize("kind", sorted(LAYOUTS))
def test_the_space_builds_from_its_own_files(kind, tmp_path):
    tree = build_tree(LAYOUTS[kind], ROOT, tmp_path / kind)
    stages = dockerfile.stages(tree / "Dockerfile")
    for source in dockerfile.copy_sources(stages):
        assert (tree / source).exists(), f"the {kind} Space's Dockerfile copies {source}, which the upload lacks"
    front = yaml.safe_load(re.match(r"\A---\n(.*?)\n---", (tree / "README.md").read_text(), re.DOTALL)[1])
    assert front["sdk"] == "docker" and front["app_port"] == PORTS[kind]
    assert front["suggested_hardware"] == LAYOUTS[kind].hardware
    assert not [path for path in tree.rglob("*") if path.name in ("node_modules", "__pycache__") or path.suffix == ".pyc"]


def test_the_spaces_hardware_is_priced_and_billed_only_while_running():
    assert SpaceHardware(LAYOUTS["env"].hardware) == SpaceHardware.CPU_UPGRADE and VCPUS["cpu-upgrade"] == 8
    assert SpaceHardware(LAYOUTS["scorer"].hardware) == SpaceHardware.A100_LARGE
    assert hourly_now("RUNNING", "cpu-upgrade") == 0.03 and hourly_now("RUNNING_BUILDING", "a100-large") == 2.50
    assert hourly_now("PAUSED", "a100-large") == hourly_now("BUILDING", "a100-large") == 0.0
    assert hourly_now("RUNNING", "some-new-flavour") is None
    assert billed("RUNNING_APP_STARTING") and not billed("SLEEPING") and not billed(None)

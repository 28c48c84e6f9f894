"""The images, read without a Docker engine: pinned bases, dependencies installed before the code,
a non-root user, no weights at build time, every file they copy present and not excluded from the
build context, and every install script one that `make setup` (and so CI) runs on the host too."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

import pytest

from tests.deploy import dockerfile

ROOT = Path(__file__).resolve().parents[2]
# (Dockerfile, build target): each image compose or a Space builds.
IMAGES = [
    ("services/env/Dockerfile", None),
    ("services/env/Dockerfile", "env"),
    ("services/env/Dockerfile", "demo"),
    ("services/scorer/Dockerfile", None),
    ("services/scorer/Dockerfile", "heuristic"),
    ("trainer/Dockerfile", None),
]
# Built by `make stack-test` where no registry answers: Redis from Debian's package.
LOCAL_IMAGES = ["deploy/docker/redis.Dockerfile"]
# A version, or a Debian snapshot date (debian:bookworm-20250630-slim): never a tag that moves.
PINNED = re.compile(r"[\w./-]+:(\d+\.\d+\.\d+[\w.-]*|[a-z]+-\d{8}[\w.-]*)")
# The project's code: after it is copied in, nothing may resolve dependencies again.
CODE = re.compile(r"^(shared|services/\w+/watercolour_\w+|(trainer|harness|demo)/watercolour_\w+)/?$")


INSTALLS = re.compile(r"pip install|apt-get|\bbash \S+\.sh")


def ignored(path: str) -> bool:
    """Whether .dockerignore leaves `path` (or a folder above it) out: `**/x` anywhere, `x` at the root."""
    patterns = [line for line in (ROOT / ".dockerignore").read_text().splitlines() if line and not line.startswith("#")]
    parts = Path(path).parts
    prefixes = ["/".join(parts[:depth]) for depth in range(1, len(parts) + 1)]
    for pattern in patterns:
        if pattern.startswith("**/") and any(fnmatch.fnmatch(part, pattern[3:]) for part in parts):
            return True
        if any(fnmatch.fnmatch(prefix, pattern) for prefix in prefixes):
            return True
    return False


@pytest.mark.parametrize(("path", "target"), IMAGES + [(path, None) for path in LOCAL_IMAGES])
def test_the_base_image_is_pinned(path, target):
    stages = dockerfile.stages(ROOT / path)
    for stage in dockerfile.chain(stages, target):
        if stage.base not in {other.name for other in stages}:
            assert PINNED.fullmatch(stage.base), f"{path}: {stage.base} is not pinned"


def test_every_image_builds_on_the_same_debian_which_compose_can_replace():
    """One base for all: a machine without a registry builds them all on one local Debian (stack-test.sh)."""
    paths = sorted({path for path, _ in IMAGES} | set(LOCAL_IMAGES))
    bases = {dockerfile.from_arguments(ROOT / path)["WATERCOLOUR_BASE_IMAGE"] for path in paths}
    assert len(bases) == 1 and bases.pop().startswith("debian:bookworm-")
    compose = (ROOT / "docker-compose.yml").read_text()
    assert "- WATERCOLOUR_BASE_IMAGE\n" in compose  # passed only when set: the Dockerfiles' default stands


@pytest.mark.parametrize(("path", "target"), IMAGES + [(path, None) for path in LOCAL_IMAGES])
def test_it_runs_as_a_non_root_user(path, target):
    users = [args for keyword, args in dockerfile.instructions(dockerfile.stages(ROOT / path), target) if keyword == "USER"]
    assert users and users[-1] not in ("root", "0"), path


@pytest.mark.parametrize(("path", "target"), IMAGES)
def test_dependencies_are_installed_before_the_code_is_copied(path, target):
    steps = dockerfile.instructions(dockerfile.stages(ROOT / path), target)
    first_code = next(i for i, (keyword, args) in enumerate(steps) if keyword == "COPY" and CODE.match(args.split()[0]))
    before, after = (
        [args for keyword, args in part if keyword == "RUN" and INSTALLS.search(args)]
        for part in (steps[:first_code], steps[first_code:])
    )
    assert before, f"{path} installs nothing before copying the code"
    assert all("--no-deps" in args for args in after), f"{path} installs dependencies after copying the code: {after}"


@pytest.mark.parametrize(("path", "target"), IMAGES)
def test_no_weights_are_baked_in(path, target):
    runs = " ".join(args for keyword, args in dockerfile.instructions(dockerfile.stages(ROOT / path), target) if keyword == "RUN")
    assert not re.search(r"hf download|huggingface-cli|snapshot_download|from_pretrained|hf_hub_download", runs), path
    assert dockerfile.environment(dockerfile.stages(ROOT / path), target)["HF_HOME"] == "/cache"


@pytest.mark.parametrize(("path", "target"), IMAGES)
def test_every_copied_file_is_in_the_build_context(path, target):
    for source in dockerfile.copy_sources(dockerfile.stages(ROOT / path), target):
        assert (ROOT / source).exists(), f"{path} copies {source}, which does not exist"
        assert not ignored(source), f"{path} copies {source}, which .dockerignore leaves out"


def test_the_build_context_leaves_out_local_environments_and_outputs():
    for path in (".venv", ".venv-scorer", "services/env/assets/node_modules", "shared/watercolour_shared/__pycache__", ".git"):
        assert ignored(path), path
    assert not ignored("shared/watercolour_shared/reward.py")


@pytest.mark.parametrize(("path", "target"), IMAGES)
def test_install_scripts_are_the_ones_the_host_setup_runs(path, target):
    """Or, for the image-only base layer, one that CI's `make stack-test` builds."""
    makefile = (ROOT / "Makefile").read_text()
    assert "make stack-test" in (ROOT / ".ci" / "run").read_text()
    runs = " ".join(args for keyword, args in dockerfile.instructions(dockerfile.stages(ROOT / path), target) if keyword == "RUN")
    for script in re.findall(r"bash (\S+\.sh)", runs):
        name = Path(script).name
        built_by_stack_test = (ROOT / "deploy" / "docker" / name).exists()
        assert name in makefile or built_by_stack_test, f"{path} runs {name}, which CI would not catch breaking"


def test_the_trainer_image_installs_the_torch_the_launch_script_pins():
    header = (ROOT / "trainer" / "watercolour_grpo.py").read_text()
    pinned = re.search(r'"torch==([^"]+)"', header)[1]
    assert f"ARG TORCH_VERSION={pinned}" in (ROOT / "trainer" / "Dockerfile").read_text()

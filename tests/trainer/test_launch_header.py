"""The launch script's PEP 723 header is what `hf jobs uv run` installs: it must pin what we test with."""

from __future__ import annotations

import re
from importlib.metadata import version

import tomllib
from packaging.requirements import Requirement

from tests.conftest import ROOT
from tests.trainer.conftest import SCRIPT

# torch comes from the platform: the header pins the CUDA build of the GPU host, the tests run the CPU build.
PLATFORM = {"torch"}


def header_requirements() -> dict[str, Requirement]:
    block = re.search(r"^# /// script\n(.*?)^# ///$", SCRIPT.read_text(), re.S | re.M).group(1)
    metadata = tomllib.loads("\n".join(line.removeprefix("# ").removeprefix("#") for line in block.splitlines()))
    return {Requirement(spec).name.lower(): Requirement(spec) for spec in metadata["dependencies"]}


def package_requirements(pyproject) -> dict[str, Requirement]:
    specs = tomllib.loads(pyproject.read_text())["project"]["dependencies"]
    return {Requirement(spec).name.lower(): Requirement(spec) for spec in specs if not spec.startswith("watercolour")}


def test_the_header_pins_the_trainer_package_and_the_shared_package_dependencies():
    header = header_requirements()
    wanted = package_requirements(ROOT / "trainer" / "pyproject.toml") | package_requirements(ROOT / "shared" / "pyproject.toml")
    for name, requirement in wanted.items():
        assert name in header, f"{name} is missing from the launch script's header"
        assert header[name].specifier == requirement.specifier, name


def test_the_tested_versions_satisfy_the_header():
    for name, requirement in header_requirements().items():
        if name not in PLATFORM:
            assert requirement.specifier.contains(version(name), prereleases=True), (name, version(name), requirement)

"""Every import of one part by another is declared in the importing part's pyproject, as a dependency or an
extra (docs/map.md, "The parts"): an arrow between parts that no pyproject names breaks an install that
follows the pyprojects, and this test names the file that draws it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import tomllib

from tests.conftest import ROOT

# part folder -> (its distribution, its top-level package)
PARTS = {
    "shared": ("watercolour-shared", "watercolour_shared"),
    "services/env": ("watercolour-env", "watercolour_env"),
    "services/scorer": ("watercolour-scorer", "watercolour_scorer"),
    "trainer": ("watercolour-trainer", "watercolour_trainer"),
    "studio": ("watercolour-studio", "watercolour_studio"),
    "harness": ("watercolour-harness", "watercolour_harness"),
    "demo": ("watercolour-demo", "watercolour_demo"),
    "deploy": ("watercolour-deploy", "watercolour_deploy"),
}
DISTRIBUTION_OF = {package: distribution for distribution, package in PARTS.values()}


def imports_in(paths: list[Path], own: str = "") -> dict[str, str]:
    """Each part's package (other than `own`) that the files import (at the top or inside a function), with one file."""
    found: dict[str, str] = {}
    for path in sorted(paths):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                package = name.split(".")[0]
                if package in DISTRIBUTION_OF and package != own:
                    found.setdefault(package, str(path.relative_to(ROOT)))
    return found


def imported_parts(folder: str) -> dict[str, str]:
    """Each other part's package that the part's code imports, with one file."""
    own = PARTS[folder][1]
    return imports_in(list((ROOT / folder / own).rglob("*.py")), own)


def declared(folder: str) -> set[str]:
    """The project's own distributions the part's pyproject names, in its dependencies or any extra."""
    project = tomllib.loads((ROOT / folder / "pyproject.toml").read_text())["project"]
    requirements = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        requirements += extra
    return {requirement.split("[")[0].split(">")[0].split("=")[0].strip() for requirement in requirements}


@pytest.mark.parametrize("folder", list(PARTS))
def test_every_part_another_part_imports_is_declared(folder):
    undeclared = {
        DISTRIBUTION_OF[package]: where
        for package, where in imported_parts(folder).items()
        if DISTRIBUTION_OF[package] not in declared(folder)
    }
    assert not undeclared, f"{folder} imports parts its pyproject does not name: {undeclared}"


def test_the_scan_sees_a_lazy_import():
    # studio's local policies import the trainer inside a function: the scan must see it, or the test above holds
    # whatever studio's pyproject says.
    assert "watercolour_trainer" in imported_parts("studio")


def test_the_demo_is_a_leaf_and_the_harness_stands_on_shared_alone():
    """What tests, benches and the demo share lives in harness/, which imports no part but shared; no part imports
    the demo."""
    assert set(imported_parts("harness")) <= {"watercolour_shared"}, imported_parts("harness")
    importers = {
        folder: imported_parts(folder)["watercolour_demo"] for folder in PARTS if "watercolour_demo" in imported_parts(folder)
    }
    assert not importers, f"the demo is a leaf, yet these parts import it: {importers}"


# Outside tests/demo, only these may import the demo: the contract tests that check every part agrees, the demo
# among them, and the benches that measure the demo itself (make bench-demo, make bench-looks).
DEMO_READERS = {
    "tests/test_reward_terms_contract.py",
    "tests/test_run_dir_contract.py",
    "bench/demo_bench.py",
    "bench/looks_bench.py",
}


def test_tests_and_benches_take_their_fixtures_from_the_harness_not_the_demo():
    files = [*(ROOT / "tests").rglob("*.py"), *(ROOT / "bench").rglob("*.py")]
    outside = [path for path in files if not path.is_relative_to(ROOT / "tests" / "demo")]
    readers = {str(path.relative_to(ROOT)) for path in outside if "watercolour_demo" in imports_in([path], own="")}
    assert readers <= DEMO_READERS, f"import watercolour_harness instead of the demo in {sorted(readers - DEMO_READERS)}"
    assert readers == DEMO_READERS, f"no longer import the demo, so drop them from DEMO_READERS: {DEMO_READERS - readers}"

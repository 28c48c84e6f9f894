"""Every import of one part by another is declared in the importing part's pyproject, as a dependency or an
extra (docs/map.md, "The parts"): an arrow between parts that no pyproject names breaks an install that
follows the pyprojects, and this test names the file that draws it."""

from __future__ import annotations

import ast

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
    "demo": ("watercolour-demo", "watercolour_demo"),
    "deploy": ("watercolour-deploy", "watercolour_deploy"),
}
DISTRIBUTION_OF = {package: distribution for distribution, package in PARTS.values()}


def imported_parts(folder: str) -> dict[str, str]:
    """Each other part's package that the part's code imports (at the top or inside a function), with one file."""
    own = PARTS[folder][1]
    found: dict[str, str] = {}
    for path in sorted((ROOT / folder / own).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                package = name.split(".")[0]
                if package in DISTRIBUTION_OF and package != own:
                    found.setdefault(package, str(path.relative_to(ROOT)))
    return found


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

"""The files each Space builds from. A Space builds the Dockerfile at its repository's root, with the
repository as the build context, so the upload puts the service's Dockerfile and its Space README
(the YAML front matter: sdk docker, app_port) at the root and every path that Dockerfile copies at
the same relative path as in this repository."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

# Never uploaded: build outputs and caches (the Dockerfile installs the npm assets itself).
IGNORED = ("node_modules", "__pycache__", "*.egg-info", "*.pyc", ".pytest_cache")


@dataclass(frozen=True)
class SpaceLayout:
    kind: str
    dockerfile: str
    readme: str
    paths: tuple[str, ...]
    hardware: str


# Every image's first layer (Python on Debian, an optional extra CA), shared by all Dockerfiles.
BASE_LAYER = "deploy/docker/base-system.sh"
LAYOUTS = {
    "env": SpaceLayout(
        "env", "services/env/Dockerfile", "services/env/space/README.md", ("shared", "services/env", BASE_LAYER), "cpu-upgrade"
    ),
    "scorer": SpaceLayout(
        "scorer",
        "services/scorer/Dockerfile",
        "services/scorer/space/README.md",
        ("shared", "services/scorer", BASE_LAYER),
        "a100-large",
    ),
}


def build_tree(layout: SpaceLayout, root: Path, dest: Path) -> Path:
    """Lay out the Space repository for `layout` from the checkout at `root` into the empty folder `dest`."""
    for path in layout.paths:
        if (root / path).is_file():
            (dest / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / path, dest / path)
        else:
            shutil.copytree(root / path, dest / path, ignore=shutil.ignore_patterns(*IGNORED))
    shutil.copyfile(root / layout.dockerfile, dest / "Dockerfile")
    shutil.copyfile(root / layout.readme, dest / "README.md")
    return dest

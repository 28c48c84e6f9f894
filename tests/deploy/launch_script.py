"""A container launch script's defaults: the `: "${NAME=value}"` lines it starts with."""

from __future__ import annotations

import re
from pathlib import Path


def defaults(path: Path) -> dict[str, str]:
    return dict(re.findall(r'^: "\$\{([A-Z][A-Z0-9_]*)=([^}]*)\}"$', path.read_text(), flags=re.MULTILINE))

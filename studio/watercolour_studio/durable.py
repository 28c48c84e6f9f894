"""Writes that survive a crash: whole files renamed into place, lines appended and synced."""

from __future__ import annotations

import json
import os
from pathlib import Path


def write_whole(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_bytes(data)
    os.replace(partial, path)


def append_line(path: Path, row: dict) -> None:
    """One JSON line, on disk before this returns: a grade given is a grade kept."""
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(row) + "\n")
        out.flush()
        os.fsync(out.fileno())


def read_lines(path: Path) -> list[dict]:
    """Every complete line; a torn last line (a crash mid-write) is left out."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines() if path.is_file() else []:
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return rows

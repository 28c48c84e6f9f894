"""A folder of paintings to grade: imagefolder rows in metadata.jsonl (what `pool generate`
writes, or an existing pool) and every grade in grades.jsonl, appended the moment it is given.

grades.jsonl is a log of grades and undos: replayed as a stack, an undo takes back the latest
grade still standing, so a regraded painting falls back to its earlier grade.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from watercolour_shared.reference_pool import TIERS
from watercolour_studio.durable import append_line, read_lines


class Collection:
    def __init__(self, folder: Path):
        self.folder = folder
        self.metadata = folder / "metadata.jsonl"
        self.log = folder / "grades.jsonl"

    def rows(self) -> list[dict]:
        return read_lines(self.metadata)

    def image(self, file_name: str) -> Path | None:
        """Only a painting the metadata lists: no request reads anything else."""
        listed = {row.get("file_name") for row in self.rows()}
        return self.folder / file_name if file_name in listed else None

    def standing(self) -> list[tuple[str, str]]:
        """The grades not undone, oldest first."""
        stack: list[tuple[str, str]] = []
        for event in read_lines(self.log):
            if event.get("undo"):
                stack = stack[:-1]
            elif event.get("tier") in TIERS:
                stack.append((event["file_name"], event["tier"]))
        return stack

    def grades(self) -> dict[str, str]:
        """file_name -> tier: a tier already in the metadata, then every standing grade (the latest wins)."""
        found = {row["file_name"]: row["tier"] for row in self.rows() if row.get("tier") in TIERS}
        return found | dict(self.standing())

    def grade(self, file_name: str, tier: str) -> None:
        if tier not in TIERS or self.image(file_name) is None:
            raise ValueError(f"cannot grade {file_name!r} as {tier!r}")
        append_line(self.log, {"file_name": file_name, "tier": tier, "at": _now()})

    def undo(self) -> str | None:
        """Takes back the latest standing grade; returns its painting, or None when there is none."""
        standing = self.standing()
        if not standing:
            return None
        append_line(self.log, {"undo": True, "file_name": standing[-1][0], "at": _now()})
        return standing[-1][0]


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")

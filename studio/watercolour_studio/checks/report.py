"""A check's answer: one pass/fail line and the evidence behind it. A "warn" is a pass worth a look: it never
fails the run."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal

Status = Literal["pass", "fail", "skip", "warn"]


@dataclass
class Check:
    name: str
    status: Status
    line: str
    evidence: list[str] = field(default_factory=list)

    def as_json(self) -> dict:
        return asdict(self)


def passed(check: Check) -> bool:
    return check.status != "fail"


def format_checks(checks: list[Check]) -> str:
    lines = []
    for check in checks:
        lines.append(f"{check.status.upper():4}  {check.name}: {check.line}")
        lines += [f"        {item}" for item in check.evidence]
    failed = sum(not passed(check) for check in checks)
    warned = sum(check.status == "warn" for check in checks)
    lines.append(f"{len(checks) - failed} of {len(checks)} checks passed" if failed else f"all {len(checks)} checks passed")
    lines[-1] += f", {warned} with a warning" if warned else ""
    return "\n".join(lines)

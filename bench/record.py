"""What a bench's JSON document starts with, and where it goes: bench/results/NAME-DATE[-SUFFIX].json."""

from __future__ import annotations

import json
import os
import platform
from datetime import datetime, timezone
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def header(bench: str) -> dict:
    """The bench's name, when it ran, and on what (the load average after it: other work skews a 2-core timing)."""
    machine = {"cpus": os.cpu_count(), "platform": platform.platform(), "load_after": os.getloadavg()}
    return {"bench": bench, "date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "machine": machine}


def write(result: dict, suffix: str = "") -> Path:
    """Print the document and keep it, named by its bench and today's date."""
    text = json.dumps(result, indent=2)
    print(text)
    path = RESULTS / f"{result['bench']}-{datetime.now(timezone.utc):%Y-%m-%d}{suffix}.json"
    path.write_text(text + "\n")
    return path

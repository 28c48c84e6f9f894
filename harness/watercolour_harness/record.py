"""What a bench's JSON document starts with, and where it goes: bench/results/NAME-DATE[-SUFFIX].json.

Every bench's document starts with `header(NAME)`: {"bench", "date", "machine"}, one spelling for all of them."""

from __future__ import annotations

import json
import os
import platform
from datetime import datetime, timezone
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[2] / "bench" / "results"


def header(bench: str, **machine: object) -> dict:
    """The bench's name, when it ran, and on what (the load average after it: other work skews a 2-core timing);
    `machine` adds what else the bench knows of the machine (its GPU, torch's version)."""
    described = {"cpus": os.cpu_count(), "platform": platform.platform(), "load_after": os.getloadavg(), **machine}
    return {"bench": bench, "date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "machine": described}


def write(result: dict, suffix: str = "", folder: Path = RESULTS) -> Path:
    """Print the document and keep it in `folder`, named by its bench and the date in its header."""
    text = json.dumps(result, indent=2)
    print(text)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{result['bench']}-{result['date'][:10]}{suffix}.json"
    path.write_text(text + "\n")
    return path

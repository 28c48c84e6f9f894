"""The gate's data files (allowlist, refused names, the p5.brush API), loaded once."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent.parent / "data"


@dataclass(frozen=True)
class GateRules:
    allowed_methods: frozenset[str]
    painting_methods: frozenset[str]
    brush_api: frozenset[str]
    calls: dict[str, str]  # bare call name -> violation code
    identifiers: dict[str, str]  # referenced name -> violation code
    properties: dict[str, str]  # member name -> violation code
    timers: frozenset[str]
    protected_globals: frozenset[str]
    world: dict  # sketch_world.json: the p5 and JavaScript names a sketch can reach
    world_names: frozenset[str]  # every one of them, and `brush`
    digest: str  # changes whenever any rule changes; part of cache keys


def _by_name(table: dict[str, list[str]]) -> dict[str, str]:
    return {name: code for code, names in table.items() for name in names}


def _world_names(world: dict) -> frozenset[str]:
    functions = [name for group in world["p5_functions"].values() for name in group]
    return frozenset([*functions, *world["p5_values"], *world["javascript"], "brush"])


@cache
def load_rules(allowlist_path: Path | None = None) -> GateRules:
    allowlist_file = allowlist_path or DATA_DIR / "allowlist.json"
    raw = {
        "allowlist": json.loads(allowlist_file.read_text()),
        "rules": json.loads((DATA_DIR / "gate_rules.json").read_text()),
        "api": json.loads((DATA_DIR / "brush_api.json").read_text()),
        "world": json.loads((DATA_DIR / "sketch_world.json").read_text()),
    }
    allowlist, rules = raw["allowlist"], raw["rules"]
    allowed = frozenset(allowlist["methods"])
    painting = frozenset(allowlist["painting"])
    if not painting <= allowed:
        raise ValueError(f"{allowlist_file}: painting methods {sorted(painting - allowed)} are not in the allowlist")
    return GateRules(
        allowed_methods=allowed,
        painting_methods=painting,
        brush_api=frozenset(raw["api"]["names"]),
        calls=_by_name(rules["calls"]),
        identifiers=_by_name(rules["identifiers"]),
        properties=_by_name(rules["properties"]),
        timers=frozenset(rules["timers"]),
        protected_globals=frozenset(rules["protected_globals"]),
        world=raw["world"],
        world_names=_world_names(raw["world"]),
        digest=hashlib.sha256(json.dumps(raw, sort_keys=True).encode()).hexdigest()[:16],
    )

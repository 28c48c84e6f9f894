"""Cache keys for everything the stack caches in Redis. Each key holds every input
that can change the cached answer, so a changed rule or library never serves a stale one."""

from __future__ import annotations

import hashlib
import json

KEY_PREFIX = "watercolour"


def _digest(parts: dict) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def render_key(code: str, seed: int, canvas: tuple[int, int], rules_digest: str, renderer_version: str) -> str:
    parts = {"code": code, "seed": seed, "canvas": list(canvas), "rules": rules_digest, "renderer": renderer_version}
    return f"{KEY_PREFIX}:render:v1:{_digest(parts)}"

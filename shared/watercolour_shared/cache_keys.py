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


def score_key(image_digest: str, prompt: str, backend: str, backend_version: str) -> str:
    parts = {"image": image_digest, "prompt": prompt, "backend": backend, "version": backend_version}
    return f"{KEY_PREFIX}:score:v1:{_digest(parts)}"


def verdict_key(candidate_digest: str, reference_id: str, order: str, model: str, prompt_digest: str) -> str:
    parts = {"candidate": candidate_digest, "reference": reference_id, "order": order, "model": model, "prompt": prompt_digest}
    return f"{KEY_PREFIX}:verdict:v1:{_digest(parts)}"


def critic_key(image_digest: str, model: str, prompt_digest: str) -> str:
    """The VLM critic's critique of one painting: `prompt_digest` covers the text as sent (subject, gate outcome) and
    the critic's version (its prompt file and code), so a group sharing a painting and a subject asks once."""
    parts = {"image": image_digest, "model": model, "prompt": prompt_digest}
    return f"{KEY_PREFIX}:critique:v1:{_digest(parts)}"

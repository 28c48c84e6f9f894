"""The sandbox page's files, answered from memory: the page makes no real request."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ORIGIN = "http://sandbox.watercolour.invalid"
PAGE_URL = f"{ORIGIN}/page.html"
SANDBOX_DIR = Path(__file__).resolve().parent.parent / "sandbox"

# No eval, no network, no workers, no frames: only our own scripts run.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
    "connect-src 'none'; worker-src 'none'; frame-src 'none'; media-src 'none'; font-src 'none'; "
    "object-src 'none'; base-uri 'none'; form-action 'none'"
)


@dataclass(frozen=True)
class PageFile:
    body: bytes
    content_type: str


@cache
def library_files(assets_dir: Path) -> dict[str, PageFile]:
    js = "text/javascript; charset=utf-8"
    files = {
        "/lib/p5.min.js": PageFile((assets_dir / "p5/lib/p5.min.js").read_bytes(), js),
        "/lib/p5.brush.js": PageFile((assets_dir / "p5.brush/dist/p5.brush.js").read_bytes(), js),
        "/page.html": PageFile((SANDBOX_DIR / "page.html").read_bytes(), "text/html; charset=utf-8"),
    }
    for name in ("prelude.js", "hooks.js", "world.js", "launch.js"):
        files[f"/{name}"] = PageFile((SANDBOX_DIR / name).read_bytes(), js)
    return files


@cache
def library_versions(assets_dir: Path) -> str:
    """Library versions and a digest of every served file: a changed byte changes every cache key."""
    versions = [json.loads((assets_dir / pkg / "package.json").read_text())["version"] for pkg in ("p5", "p5.brush")]
    served = library_files(assets_dir)
    digest = hashlib.sha256(b"".join(served[name].body for name in sorted(served))).hexdigest()[:12]
    return f"p5@{versions[0]}+p5.brush@{versions[1]}+sandbox@{digest}"


# The sketch's code becomes the body of a strict function inside `with (scope)`:
# every free name it uses resolves through world.js's scope. The code cannot
# close this function early: V8 itself has accepted it as a whole script before
# the page loads (page_run.py), so its brackets balance as V8 reads them.
_SKETCH_HEAD = 'window.__wc.sketch(function (__wc_scope__) { with (__wc_scope__) { return function () { "use strict";\n'
_SKETCH_TAIL = (
    '\n;return [typeof setup === "function" ? setup : undefined, typeof draw === "function" ? draw : undefined];\n}; } });\n'
)


# `typeof NAME` (spaced or parenthesised any way): world.js lets such a name read as undefined when nothing
# in the world has it. A match inside a comment or string only does the same for a name the code never uses.
# One character class before the name, disjoint from it: no backtracking, linear in the code.
_PROBED = re.compile(r"\btypeof[\s(]*([A-Za-z_$][\w$]*)")


def sketch_files(code: str, config: dict) -> dict[str, PageFile]:
    js = "text/javascript; charset=utf-8"
    config = {**config, "probedNames": sorted(set(_PROBED.findall(code)))}
    return {
        "/config.js": PageFile(f"window.__WC_CONFIG = Object.freeze({json.dumps(config)});".encode(), js),
        "/sketch.js": PageFile((_SKETCH_HEAD + code + _SKETCH_TAIL).encode("utf-8", errors="replace"), js),
    }

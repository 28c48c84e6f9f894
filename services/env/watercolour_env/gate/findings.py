"""The gate's verdict as it grows: one violation per distinct message, a bounded number per code."""

from __future__ import annotations

from tree_sitter import Node

from watercolour_shared.render_wire import Violation
from watercolour_shared.violations import ViolationCode as V

# Enough to show what is wrong; a pathological input must not turn into megabytes of verdict.
MAX_PER_CODE = 25
SNIPPET_CHARS = 60


class Findings:
    def __init__(self, source: bytes):
        self.source = source
        self._found: dict[tuple[str, str], Violation] = {}
        self._per_code: dict[V, int] = {}

    def flag(self, code: V, message: str, node: Node | None = None) -> None:
        key = (code.value, message)
        if key in self._found or self._per_code.get(code, 0) >= MAX_PER_CODE:
            return
        self._per_code[code] = self._per_code.get(code, 0) + 1
        self._found[key] = Violation(code=code, message=message, line=node.start_point[0] + 1 if node else None)

    def snippet(self, node: Node) -> str:
        """The start of a node's text, without reading all of a large node."""
        end = min(node.end_byte, node.start_byte + 4 * SNIPPET_CHARS)
        return self.source[node.start_byte : end].decode("utf-8", errors="replace")[:SNIPPET_CHARS]

    def violations(self) -> list[Violation]:
        return sorted(self._found.values(), key=lambda v: v.line if v.line is not None else 1 << 62)

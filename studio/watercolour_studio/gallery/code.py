"""Sketch code as highlighted HTML. Pygments escapes everything, so a model's code
can never become markup on the page."""

from __future__ import annotations

from functools import cache

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import JavascriptLexer

_FORMATTER = HtmlFormatter(nowrap=True, style="friendly")


def highlighted(code: str) -> str:
    """Exactly the code, character for character, each line in a `span.line` (numbered by CSS)."""
    html = highlight(code, JavascriptLexer(stripnl=False, ensurenl=False), _FORMATTER)
    # Pygments closes its spans at every line's end, so each line of its output is whole HTML.
    lines = html.removesuffix("\n").split("\n")
    return "\n".join(f'<span class="line">{line}</span>' for line in lines) + ("\n" if code.endswith("\n") else "")


@cache
def stylesheet() -> str:
    return _FORMATTER.get_style_defs(".code")

"""Source text as V8 reads it: line terminators, escaped identifiers, string values.

The gate must read a name the way the engine that runs the sketch will:
`\\u0066ill` is `fill`, and `brush['\\x68atch']` is `brush.hatch`.
"""

from __future__ import annotations

import re

# V8 ends lines (and `//` comments) at all four; tree-sitter does not at a lone \r.
_LINE_TERMINATOR = re.compile("\r\n?|[\u2028\u2029]")
_IDENTIFIER_ESCAPE = re.compile(r"\\u\{([0-9a-fA-F]+)\}|\\u([0-9a-fA-F]{4})")
# One escape sequence of a string or template literal; the order of the alternatives matters.
_STRING_ESCAPE = re.compile(
    r"\\(?:u\{(?P<braced>[0-9a-fA-F]+)\}|u(?P<u4>[0-9a-fA-F]{4})|x(?P<x2>[0-9a-fA-F]{2})"
    r"|(?P<octal>[0-3][0-7]{0,2}|[4-7][0-7]?)|(?P<continuation>\r\n|[\n\r\u2028\u2029])|(?P<char>[\s\S]))"
)
_SINGLE_CHAR = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


def normalise_source(text: str) -> str:
    """One text for the gate, the renderer and the cache: every line terminator V8 honours is `\\n`,
    and lone surrogates (which cannot be encoded) are `?`."""
    text = text.encode("utf-8", errors="replace").decode("utf-8")
    return _LINE_TERMINATOR.sub("\n", text)


def parse_text(source: str) -> str:
    """The text tree-sitter reads: a NUL, which it takes for the end of the input anywhere, is U+0001.
    V8 reads both alike: data inside a comment, string, template or regular expression literal, and a
    syntax error anywhere else, where tree-sitter finds U+0001 one too. Same length, same lines."""
    return source.replace("\0", "\x01")


def _code_point(value: str) -> str:
    number = int(value, 16)
    return chr(number) if number <= 0x10FFFF else "\ufffd"  # V8 refuses the code; any stand-in will do


def identifier_name(raw: str) -> str:
    """An identifier or property name with its `\\uXXXX` / `\\u{X}` escapes decoded."""
    if "\\" not in raw:
        return raw
    return _IDENTIFIER_ESCAPE.sub(lambda m: _code_point(m.group(1) or m.group(2)), raw)


def _unescape(match: re.Match) -> str:
    for group in ("braced", "u4", "x2"):
        if match.group(group):
            return _code_point(match.group(group))
    if match.group("octal"):
        return chr(int(match.group("octal"), 8))  # a SyntaxError in strict mode, but never a different name
    if match.group("continuation"):
        return ""
    char = match.group("char")
    return _SINGLE_CHAR.get(char, char)


def literal_value(raw: str) -> str:
    """The value of a string literal's or template segment's source text (without its quotes)."""
    return _STRING_ESCAPE.sub(_unescape, raw) if "\\" in raw else raw


def string_value(literal: str) -> str:
    """The value of a quoted string literal, quotes included in `literal`."""
    return literal_value(literal[1:-1])

"""Static gate: reads the sketch's real JavaScript syntax tree (tree-sitter), never regexes.

A cheap first layer with clear verdicts; the sandbox page, which runs the sketch
in strict mode with only the names of data/sketch_world.json in reach, is the
authority. Comments, strings and names the sketch declares itself (its own
`fill` helper) never trip it: only free references, calls and members count.
Its cost is linear in the code: one parse, one walk (walk.py), and a node
budget so that the work is bounded whatever the input.
"""

from __future__ import annotations

import threading

import tree_sitter_javascript
from tree_sitter import Language, Node, Parser

from watercolour_env.gate.collector import collector_paused
from watercolour_env.gate.findings import Findings
from watercolour_env.gate.free_names import FreeNames
from watercolour_env.gate.js_text import normalise_source, parse_text
from watercolour_env.gate.rules import GateRules
from watercolour_env.gate.walk import TreeWalk
from watercolour_shared.render_wire import Violation
from watercolour_shared.violations import ViolationCode as V

# A sketch has about one node per two characters (the 100,000-character limit: ~50,000 nodes);
# no JavaScript has more than about two per character, so this holds for twice the limit too.
NODE_BUDGET = 300_000

_LANGUAGE = Language(tree_sitter_javascript.language())
# tree-sitter holds the interpreter lock while it parses one buffer (0.9 s for 200,000 characters of
# unparseable text, with the server's event loop waiting), but lets it go between reads of a callback.
_READ_CHUNK = 1024
_PARSERS = threading.local()  # a Parser is not thread-safe, and the pipeline gates in worker threads


def _parser() -> Parser:
    if not hasattr(_PARSERS, "parser"):
        _PARSERS.parser = Parser(_LANGUAGE)
    return _PARSERS.parser


def analyse(code: str, rules: GateRules, node_budget: int = NODE_BUDGET) -> list[Violation]:
    # Read line terminators as V8 does (reply extraction has done the same, so this changes nothing there).
    text = normalise_source(code)
    source = text.encode("utf-8")
    # tree-sitter reads a NUL as V8 does only as U+0001 (js_text.parse_text): same bytes, same offsets, so
    # names, strings and snippets are still read from the code itself.
    parsed = parse_text(text).encode("utf-8")
    tree = _parser().parse(lambda offset, _point: parsed[offset : offset + _READ_CHUNK])
    root = tree.root_node
    if root.descendant_count > node_budget:
        message = f"the code has {root.descendant_count} syntax nodes; the limit is {node_budget}"
        return [Violation(code=V.OVERSIZED, message=message)]
    findings = Findings(source)
    if root.has_error:
        _syntax(root, findings)
        return findings.violations()
    with collector_paused():
        walk = TreeWalk(source, rules, findings)
        walk.run(root)
        names = FreeNames(rules, findings)
        for reference in walk.log.free_references():
            names.check(reference)
        names.structure(walk.has_setup)
    return findings.violations()


def _first_error(root: Node) -> Node:
    """The first ERROR or missing node, entering only subtrees that contain one."""
    cursor = root.walk()
    while True:
        node = cursor.node
        if node.is_error or node.is_missing:
            return node
        if node.has_error and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return root


def _syntax(root: Node, findings: Findings) -> None:
    bad = _first_error(root)
    end_row = root.end_point[0]
    # A tree that breaks on its last lines, or misses a closing token, was cut off.
    if bad.is_missing or bad.end_point[0] >= end_row - 1 and bad.end_byte >= root.end_byte - 2:
        findings.flag(V.TRUNCATED, "the code ends in the middle of a statement or block", bad)
    else:
        findings.flag(V.SYNTAX_ERROR, f"syntax error near {findings.snippet(bad)[:40]!r}", bad)

"""Static gate: walks a real JavaScript syntax tree (tree-sitter), never regexes.

Comments, strings and identifiers that merely contain a refused name
(`prefetchPalette`) cannot trip it: only references, calls and members are
checked. What this layer cannot see (values computed at run time) the sandbox
page enforces while the sketch runs (see sandbox/guard.js).
"""

from __future__ import annotations

from collections.abc import Iterator

import tree_sitter_javascript
from tree_sitter import Language, Node, Parser

from watercolour_env.gate.rules import GateRules
from watercolour_shared.render_wire import Violation
from watercolour_shared.violations import ViolationCode as V

_PARSER = Parser(Language(tree_sitter_javascript.language()))
_NAME_NODES = {"identifier", "shorthand_property_identifier"}


def analyse(code: str, rules: GateRules) -> list[Violation]:
    tree = _PARSER.parse(code.encode("utf-8", errors="replace"))
    return _Analysis(rules).run(tree.root_node)


def _text(node: Node) -> str:
    return node.text.decode("utf-8", errors="replace") if node.text is not None else ""


def _line(node: Node) -> int:
    return node.start_point[0] + 1


def _walk(root: Node) -> Iterator[Node]:
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))


class _Analysis:
    def __init__(self, rules: GateRules):
        self.rules = rules
        self.found: dict[tuple[str, str], Violation] = {}
        self.has_setup = False
        self.canvas_calls: list[Node] = []
        self.painting_calls = 0

    def flag(self, code: V, message: str, node: Node | None = None) -> None:
        key = (code.value, message)
        if key not in self.found:
            self.found[key] = Violation(code=code, message=message, line=_line(node) if node else None)

    def run(self, root: Node) -> list[Violation]:
        if root.has_error:
            self._syntax(root)
            return list(self.found.values())
        for node in _walk(root):
            handler = getattr(self, f"_on_{node.type}", None)
            if handler:
                handler(node)
        self._structure()
        return list(self.found.values())

    # -- syntax ---------------------------------------------------------------
    def _syntax(self, root: Node) -> None:
        bad = next(n for n in _walk(root) if n.type == "ERROR" or n.is_missing)
        end_row = root.end_point[0]
        # A tree that breaks on its last lines, or misses a closing token, was cut off.
        if bad.is_missing or bad.end_point[0] >= end_row - 1 and bad.end_byte >= root.end_byte - 2:
            self.flag(V.TRUNCATED, "the code ends in the middle of a statement or block", bad)
        else:
            self.flag(V.SYNTAX_ERROR, f"syntax error near {_text(bad)[:40]!r}", bad)

    # -- structure ------------------------------------------------------------
    def _structure(self) -> None:
        if not self.has_setup:
            self.flag(V.NO_SETUP, "no function setup() is defined")
        if not self.canvas_calls:
            self.flag(V.CANVAS_NOT_WEBGL, "createCanvas(600, 600, WEBGL) is never called")
        for call in self.canvas_calls:
            self._check_canvas(call)
        if self.painting_calls == 0:
            names = ", ".join(f"brush.{m}" for m in sorted(self.rules.painting_methods))
            self.flag(V.NO_PAINTING_CALL, f"the sketch never paints ({names})")

    def _check_canvas(self, call: Node) -> None:
        args = [a for a in call.child_by_field_name("arguments").named_children if a.type != "comment"]
        renderer = _text(args[2]) if len(args) >= 3 else ""
        if renderer not in ("WEBGL", "'webgl'", '"webgl"'):
            self.flag(V.CANVAS_NOT_WEBGL, "createCanvas is called without WEBGL", call)
        sizes = [_text(a) for a in args[:2]]
        if all(a.type == "number" for a in args[:2]) and len(args) >= 2 and sizes != ["600", "600"]:
            self.flag(V.CANVAS_SIZE, f"createCanvas({', '.join(sizes)}): the canvas must be 600x600", call)

    def _on_function_declaration(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        if name is not None and _text(name) == "setup" and node.parent.type == "program":
            self.has_setup = True

    _on_generator_function_declaration = _on_function_declaration

    def _on_variable_declarator(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        declaration = node.parent
        if (
            name is not None
            and _text(name) == "setup"
            and declaration.type == "variable_declaration"
            and declaration.parent.type == "program"
        ):
            self.has_setup = True  # `var setup = ...` defines window.setup; let/const do not

    # -- names ----------------------------------------------------------------
    def _on_identifier(self, node: Node) -> None:
        name = _text(node)
        if name.startswith("__"):
            self.flag(V.REFLECTION, f"{name} is not available to sketches", node)
        code = self.rules.identifiers.get(name)
        if code:
            self.flag(V(code), f"{name} is not available to sketches", node)
        if name == "brush" and not self._is_member_object(node):
            self.flag(V.BRUSH_ALIAS, "brush may only be used as brush.method(...)", node)

    _on_shorthand_property_identifier = _on_identifier

    def _on_property_identifier(self, node: Node) -> None:
        parent = node.parent
        if parent.type == "member_expression" and parent.child_by_field_name("property") == node:
            self._check_member(parent, _text(node))

    def _on_subscript_expression(self, node: Node) -> None:
        index = node.child_by_field_name("index")
        obj = node.child_by_field_name("object")
        if index is not None and index.type == "string":
            self._check_member(node, _text(index)[1:-1])
        elif _text(obj) == "brush":
            self.flag(V.COMPUTED_ACCESS, "brush[...] with a computed name is not allowed", node)
        elif index is not None and index.type in ("template_string", "binary_expression") and self._builds_string(index):
            self.flag(V.COMPUTED_ACCESS, f"a member name built at run time: {_text(node)[:60]}", node)

    def _builds_string(self, node: Node) -> bool:
        return any(n.type in ("string", "template_string") for n in _walk(node))

    def _check_member(self, member: Node, name: str) -> None:
        obj = member.child_by_field_name("object")
        if name.startswith("__"):
            self.flag(V.REFLECTION, f".{name} is not available to sketches", member)
        code = self.rules.properties.get(name)
        if code:
            self.flag(V(code), f".{name} is not available to sketches", member)
        if obj is not None and obj.type == "identifier" and _text(obj) == "brush":
            self._check_brush_member(member, name)

    def _check_brush_member(self, member: Node, name: str) -> None:
        if name not in self.rules.allowed_methods:
            if name in self.rules.brush_api:
                self.flag(V.OFFLIST_BRUSH_METHOD, f"brush.{name} is a p5.brush method outside the allowlist", member)
            else:
                self.flag(V.UNKNOWN_BRUSH_METHOD, f"brush.{name} does not exist in p5.brush", member)
            return
        parent = member.parent
        if parent.type == "call_expression" and parent.child_by_field_name("function") == member:
            if name in self.rules.painting_methods:
                self.painting_calls += 1
        elif not self._is_assignment_target(member):
            self.flag(V.BRUSH_ALIAS, f"brush.{name} is used without being called", member)

    @staticmethod
    def _is_member_object(node: Node) -> bool:
        parent = node.parent
        return (
            parent is not None
            and parent.type in ("member_expression", "subscript_expression")
            and (parent.child_by_field_name("object") == node)
        )

    @staticmethod
    def _is_assignment_target(node: Node) -> bool:
        parent = node.parent
        return parent.type in ("assignment_expression", "augmented_assignment_expression") and (
            parent.child_by_field_name("left") == node
        )

    # -- calls ----------------------------------------------------------------
    def _on_call_expression(self, node: Node) -> None:
        function = node.child_by_field_name("function")
        if function is None:
            return
        if function.type == "import":
            self.flag(V.EXTERNAL_ACCESS, "import() is not available to sketches", node)
            return
        if function.type != "identifier":
            return
        name = _text(function)
        code = self.rules.calls.get(name)
        if code:
            self.flag(V(code), f"{name}() is not available to sketches", node)
        if name == "createCanvas":
            self.canvas_calls.append(node)
        if name in self.rules.timers:
            args = node.child_by_field_name("arguments").named_children
            if args and args[0].type in ("string", "template_string", "binary_expression"):
                self.flag(V.STRING_TIMER, f"{name} with a string of code", node)

    def _on_new_expression(self, node: Node) -> None:
        constructor = node.child_by_field_name("constructor")
        if constructor is not None and _text(constructor) in ("Function", "Image", "Worker"):
            self.flag(V.EXTERNAL_ACCESS, f"new {_text(constructor)}() is not available to sketches", node)

    # -- assignments ----------------------------------------------------------
    def _on_assignment_expression(self, node: Node) -> None:
        left = node.child_by_field_name("left")
        root = left
        while root is not None and root.type in ("member_expression", "subscript_expression"):
            root = root.child_by_field_name("object")
        if root is None or root.type != "identifier":
            return
        name = _text(root)
        if name in self.rules.protected_globals and (root is not left or name not in ("setup", "draw")):
            self.flag(V.MONKEY_PATCH, f"assigning to {_text(left)[:60]} changes the environment", node)

    _on_augmented_assignment_expression = _on_assignment_expression

    # -- escapes that need no name --------------------------------------------
    def _on_with_statement(self, node: Node) -> None:
        self.flag(V.REFLECTION, "with statements are not available to sketches", node)

    def _on_import_statement(self, node: Node) -> None:
        self.flag(V.EXTERNAL_ACCESS, "import is not available to sketches", node)

    _on_export_statement = _on_import_statement

    def _on_string_fragment(self, node: Node) -> None:
        value = _text(node).strip().lower()
        if value.startswith(self.rules.url_prefixes):
            self.flag(V.EXTERNAL_ACCESS, f"a URL in the code: {value[:40]!r}", node)

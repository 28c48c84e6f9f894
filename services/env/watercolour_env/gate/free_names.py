"""What a free name means (one the sketch never declares, so it reaches the sketch's world), and
the structure every sketch needs: setup, a 600x600 WEBGL canvas, at least one painting call.

Every free reference counts, not only a direct call: `const f = fill`, `(0, fill)(1)`,
`fill.call(null, 1)` all reach p5's fill. A sketch's own `fill` or `top` is its business.
"""

from __future__ import annotations

from tree_sitter import Node

from watercolour_env.gate.findings import SNIPPET_CHARS, Findings
from watercolour_env.gate.js_text import identifier_name, string_value
from watercolour_env.gate.rules import GateRules
from watercolour_env.gate.walk import MemberAccess, Reference
from watercolour_shared.violations import ViolationCode as V

_STRING_CODE = frozenset({"string", "template_string", "binary_expression"})


class FreeNames:
    def __init__(self, rules: GateRules, findings: Findings):
        self.rules = rules
        self.findings = findings
        self.canvas_calls: list[Node] = []
        self.painting_calls = 0

    def check(self, ref: Reference) -> None:
        name, node, flag = ref.name, ref.node, self.findings.flag
        if ref.probed:  # `typeof window` reads as "undefined" in the sketch's world (world.js)
            return
        if name.startswith("__"):
            flag(V.REFLECTION, f"{name[:SNIPPET_CHARS]} is not available to sketches", node)
        code = self.rules.identifiers.get(name)
        if code:
            flag(V(code), f"{name} is not available to sketches", node)
        code = self.rules.calls.get(name)
        if code:
            flag(V(code), f"{name}{'()' if ref.call else ''} is not available to sketches", node)
        if name == "brush":
            self._brush(ref.member, node)
        if ref.call is not None and name == "createCanvas":
            self.canvas_calls.append(ref.call)
        if ref.call is not None and name in self.rules.timers:
            self._timer(name, ref.call)
        if ref.assignment is not None and name in self.rules.protected_globals:
            self._assignment(name, ref)

    def _assignment(self, name: str, ref: Reference) -> None:
        if ref.assigned_directly and name in ("setup", "draw"):
            return  # defining setup and draw is the sketch's job
        assignment = ref.assignment
        target = assignment.child_by_field_name("left") or assignment.child_by_field_name("argument")
        self.findings.flag(V.MONKEY_PATCH, f"assigning to {self.findings.snippet(target)} changes the environment", assignment)

    # -- brush ------------------------------------------------------------------
    def _brush(self, member: MemberAccess | None, node: Node) -> None:
        if member is None:
            self.findings.flag(V.BRUSH_ALIAS, "brush may only be used as brush.method(...)", node)
        elif member.name is None:
            self.findings.flag(V.COMPUTED_ACCESS, "brush[...] with a computed name is not allowed", member.node)
        else:
            self._brush_method(member)

    def _brush_method(self, member: MemberAccess) -> None:
        name, flag = member.name, self.findings.flag
        shown = name[:SNIPPET_CHARS]
        if name not in self.rules.allowed_methods:
            if name in self.rules.brush_api:
                flag(V.OFFLIST_BRUSH_METHOD, f"brush.{shown} is a p5.brush method outside the allowlist", member.node)
            else:
                flag(V.UNKNOWN_BRUSH_METHOD, f"brush.{shown} does not exist in p5.brush", member.node)
        elif member.called:
            self.painting_calls += name in self.rules.painting_methods
        elif not member.assigned:  # an assignment is a monkey patch, flagged as one
            flag(V.BRUSH_ALIAS, f"brush.{shown} is used without being called", member.node)

    # -- calls ------------------------------------------------------------------
    @staticmethod
    def _arguments(call: Node) -> list[Node]:
        args = call.child_by_field_name("arguments")
        if args is None or args.type != "arguments":  # a tagged template passes its strings
            return []
        return [a for a in args.named_children if a.type != "comment"]

    def _timer(self, name: str, call: Node) -> None:
        args = call.child_by_field_name("arguments")
        tagged = args is not None and args.type == "template_string"
        first = self._arguments(call)[:1]
        if tagged or (first and first[0].type in _STRING_CODE):
            self.findings.flag(V.STRING_TIMER, f"{name} with a string of code", call)

    # -- structure --------------------------------------------------------------
    def structure(self, has_setup: bool) -> None:
        flag = self.findings.flag
        if not has_setup:
            flag(V.NO_SETUP, "no function setup() is defined")
        if not self.canvas_calls:
            flag(V.CANVAS_NOT_WEBGL, "createCanvas(600, 600, WEBGL) is never called")
        for call in self.canvas_calls:
            self._check_canvas(call)
        if self.painting_calls == 0:
            names = ", ".join(f"brush.{m}" for m in sorted(self.rules.painting_methods))
            flag(V.NO_PAINTING_CALL, f"the sketch never paints ({names})")

    def _check_canvas(self, call: Node) -> None:
        args = self._arguments(call)
        if not (len(args) >= 3 and self._is_webgl(args[2])):
            self.findings.flag(V.CANVAS_NOT_WEBGL, "createCanvas is called without WEBGL", call)
        if len(args) >= 2 and all(a.type == "number" for a in args[:2]):
            sizes = [self.findings.snippet(a)[:12] for a in args[:2]]
            if sizes != ["600", "600"]:
                self.findings.flag(V.CANVAS_SIZE, f"createCanvas({', '.join(sizes)}): the canvas must be 600x600", call)

    def _is_webgl(self, arg: Node) -> bool:
        text = self.findings.snippet(arg)
        if arg.type == "identifier":
            return identifier_name(text) == "WEBGL"
        return arg.type == "string" and len(text) < SNIPPET_CHARS and string_value(text) == "webgl"

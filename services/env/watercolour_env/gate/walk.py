"""One pass over the syntax tree, in document order, with a cursor.

py-tree-sitter's `node.parent` searches down from the root, so the walk never
asks for it: each node's context (its scope, whether it declares a name,
whether it is called, assigned or the object of a member access) comes from a
stack of frames the walk keeps itself, one per open ancestor. Every node is
visited once and no check re-reads a subtree, so the walk is linear in the
tree however deeply the code nests.

What a node means on its own (a refused member name, an HTML-like
comment) is flagged here; what a name means depends on whether the sketch
declares it, which only the whole tree can tell, so references are logged
and judged afterwards (free_names.py).
"""

from __future__ import annotations

from typing import NamedTuple

from tree_sitter import Node

from watercolour_env.gate.findings import SNIPPET_CHARS, Findings
from watercolour_env.gate.js_text import identifier_name, string_value
from watercolour_env.gate.rules import GateRules
from watercolour_env.gate.scopes import Scope, ScopeLog
from watercolour_shared.violations import ViolationCode as V

ASSIGNMENTS = frozenset({"assignment_expression", "augmented_assignment_expression"})
MEMBERS = frozenset({"member_expression", "subscript_expression"})
_WHITESPACE = frozenset(b" \t\v\f")


class MemberAccess(NamedTuple):
    name: str | None  # None: computed at run time
    called: bool  # the callee of a call
    assigned: bool  # the target of an assignment
    node: Node


class Reference(NamedTuple):
    """A use of a name that is not a declaration of it."""

    name: str
    node: Node
    call: Node | None  # the call, when the name is called directly
    member: MemberAccess | None  # when the name is the object of a member access
    assignment: Node | None  # when the name is the root of an assignment's target
    assigned_directly: bool  # `name = ...`, not `name.x = ...`
    probed: bool  # `typeof name`: asks whether it exists, reaches nothing


class Frame:
    """What an open ancestor tells its children."""

    __slots__ = ("assign", "assign_field", "bind", "bind_field", "decl", "member", "node", "opens", "plain", "scope", "type")

    def __init__(self, node_type: str | None, node: Node | None, scope: Scope, plain: Frame | None):
        self.type = node_type
        self.node = node
        self.scope = scope
        self.plain = plain or self  # the frame a child without a role of its own passes on
        self.opens = False  # this frame's node opened `scope`
        self.bind: Scope | None = None  # names in binding position below declare into this scope...
        self.bind_field: str | None = None  # ...when they sit in this field (None: in any)
        self.decl: Scope | None = None  # where a declaration's declarators bind
        self.member: tuple[str | None, bool, bool] | None = None  # (name, called, assigned) of a member access
        self.assign: Node | None = None  # the assignment whose target chain runs through this node...
        self.assign_field: str | None = None  # ...continuing in this field


_OPAQUE = Frame(None, None, Scope(None, True), None)  # strings, regexes, comments: nothing below them is code


class TreeWalk:
    def __init__(self, source: bytes, rules: GateRules, findings: Findings):
        self.source = source
        self.rules = rules
        self.findings = findings
        self.log: ScopeLog[Reference] = ScopeLog()
        self.has_setup = False
        # Only these names need scopes: every other name means nothing to the rules.
        self._relevant = frozenset(
            [*rules.calls, *rules.identifiers, *rules.timers, *rules.protected_globals, "brush", "createCanvas"]
        )
        self._comment_starts: dict[int, int] = {}  # end byte -> start byte of every comment seen
        self._program: Scope | None = None
        self._handlers = {
            "function_declaration": self._function_declaration,
            "generator_function_declaration": self._function_declaration,
            "function_expression": self._function_expression,
            "generator_function": self._function_expression,
            "arrow_function": self._arrow_function,
            "method_definition": self._method,
            "formal_parameters": self._parameters,
            "class_declaration": self._class_declaration,
            "class": self._class_expression,
            "statement_block": self._block,
            "switch_body": self._block,
            "for_statement": self._block,
            "for_in_statement": self._for_in,
            "catch_clause": self._catch,
            "variable_declaration": self._var_declaration,
            "lexical_declaration": self._lexical_declaration,
            "variable_declarator": self._declarator,
            "object_pattern": self._pattern,
            "array_pattern": self._pattern,
            "rest_pattern": self._pattern,
            "pair_pattern": self._pair_pattern,
            "assignment_pattern": self._default_pattern,
            "object_assignment_pattern": self._default_pattern,
            "identifier": self._name,
            "shorthand_property_identifier": self._name,
            "shorthand_property_identifier_pattern": self._name,
            "member_expression": self._member,
            "subscript_expression": self._subscript,
            "call_expression": self._call,
            "unary_expression": self._call,
            "assignment_expression": self._assignment,
            "augmented_assignment_expression": self._assignment,
            "update_expression": self._update,
            "string": self._opaque,  # a string is data: nothing in the sketch's world takes a URL
            "regex": self._opaque,
            "comment": self._comment,
            "html_comment": self._html_comment,
            "--": self._decrement,
            "<": self._less_than,
            "import": self._import,
            "import_statement": self._module_syntax,
            "export_statement": self._module_syntax,
            "with_statement": self._with,
            "jsx_element": self._jsx,
            "jsx_self_closing_element": self._jsx,
        }

    # -- the walk -------------------------------------------------------------
    def run(self, root: Node) -> None:
        self._program = self.log.enter(None, True)
        frame = Frame("program", root, self._program, Frame(None, None, self._program, None))
        frame.opens = True
        cursor = root.walk()
        first_child, next_sibling, up = cursor.goto_first_child, cursor.goto_next_sibling, cursor.goto_parent
        stack: list[Frame] = []
        handlers, exit_scope = self._handlers, self.log.exit
        while True:
            if frame is not _OPAQUE and first_child():
                stack.append(frame)
            else:
                if frame.opens:
                    exit_scope(frame.scope)
                while not next_sibling():
                    if not up():
                        return
                    done = stack.pop()
                    if done.opens:
                        exit_scope(done.scope)
            parent = stack[-1]
            node = cursor.node
            handler = handlers.get(node.type)
            frame = handler(node, cursor.field_name, parent) if handler else parent.plain

    def _text(self, node: Node) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")

    def _flag(self, code: V, message: str, node: Node) -> None:
        self.findings.flag(code, message, node)

    # -- scopes ---------------------------------------------------------------
    def _scope(self, node: Node, parent: Frame, is_function: bool, bind_field: str | None = None) -> Frame:
        scope = self.log.enter(parent.scope, is_function)
        frame = Frame(node.type, node, scope, Frame(None, None, scope, None))  # only this frame exits the scope
        frame.opens = True
        if bind_field:
            frame.bind, frame.bind_field = scope, bind_field
        return frame

    def _function_declaration(self, node: Node, field: str | None, parent: Frame) -> Frame:
        frame = self._scope(node, parent, True, "name")
        frame.bind = parent.scope  # its name belongs to the enclosing block
        if parent.type == "program":
            name = node.child_by_field_name("name")
            self.has_setup |= name is not None and identifier_name(self._text(name)) == "setup"
        return frame

    def _function_expression(self, node: Node, field: str | None, parent: Frame) -> Frame:
        return self._scope(node, parent, True, "name")  # its name is bound inside it only

    def _arrow_function(self, node: Node, field: str | None, parent: Frame) -> Frame:
        return self._scope(node, parent, True, "parameter")

    def _method(self, node: Node, field: str | None, parent: Frame) -> Frame:
        # Its scope opens at its parameters: a computed name, `[key](param) {}`, is evaluated outside it.
        return Frame(node.type, node, parent.scope, parent.plain)

    def _parameters(self, node: Node, field: str | None, parent: Frame) -> Frame:
        if parent.type == "method_definition":
            parent.scope = self.log.enter(parent.scope, True)
            parent.plain, parent.opens = Frame(None, None, parent.scope, None), True
        frame = Frame(node.type, node, parent.scope, parent.plain)
        frame.bind = parent.scope
        return frame

    def _class_declaration(self, node: Node, field: str | None, parent: Frame) -> Frame:
        frame = Frame(node.type, node, parent.scope, parent.plain)
        frame.bind, frame.bind_field = parent.scope, "name"
        return frame

    def _class_expression(self, node: Node, field: str | None, parent: Frame) -> Frame:
        return self._scope(node, parent, False, "name")

    def _block(self, node: Node, field: str | None, parent: Frame) -> Frame:
        return self._scope(node, parent, False)

    def _catch(self, node: Node, field: str | None, parent: Frame) -> Frame:
        return self._scope(node, parent, False, "parameter")

    def _for_in(self, node: Node, field: str | None, parent: Frame) -> Frame:
        kind = node.child_by_field_name("kind")
        if kind is None:  # `for (x of xs)` assigns to x; `for (let x of xs)` declares it
            return self._scope(node, parent, False)
        frame = self._scope(node, parent, False, "left")
        if kind.type == "var":
            frame.bind = frame.scope.function
        return frame

    # -- declarations and patterns -----------------------------------------------
    def _var_declaration(self, node: Node, field: str | None, parent: Frame) -> Frame:
        frame = Frame(node.type, node, parent.scope, parent.plain)
        frame.decl = parent.scope.function
        if frame.decl is self._program:  # `var setup = ...` anywhere in the body defines setup; let/const do not
            for declarator in node.named_children:
                name = declarator.child_by_field_name("name") if declarator.type == "variable_declarator" else None
                if name is not None and name.type == "identifier" and identifier_name(self._text(name)) == "setup":
                    self.has_setup = True
        return frame

    def _lexical_declaration(self, node: Node, field: str | None, parent: Frame) -> Frame:
        frame = Frame(node.type, node, parent.scope, parent.plain)
        frame.decl = parent.scope
        return frame

    def _declarator(self, node: Node, field: str | None, parent: Frame) -> Frame:
        frame = Frame(node.type, node, parent.scope, parent.plain)
        frame.bind, frame.bind_field = parent.decl, "name"
        return frame

    @staticmethod
    def _binding(parent: Frame, field: str | None) -> Scope | None:
        if parent.bind is not None and (parent.bind_field is None or parent.bind_field == field):
            return parent.bind
        return None

    def _pattern_frame(self, node: Node, field: str | None, parent: Frame, bind_field: str | None) -> Frame:
        bind = self._binding(parent, field)
        if bind is None:  # a destructuring assignment: its names are references
            return parent.plain
        frame = Frame(node.type, node, parent.scope, parent.plain)
        frame.bind, frame.bind_field = bind, bind_field
        return frame

    def _pattern(self, node: Node, field: str | None, parent: Frame) -> Frame:
        return self._pattern_frame(node, field, parent, None)

    def _pair_pattern(self, node: Node, field: str | None, parent: Frame) -> Frame:
        return self._pattern_frame(node, field, parent, "value")  # the key is a property name, not a binding

    def _default_pattern(self, node: Node, field: str | None, parent: Frame) -> Frame:
        return self._pattern_frame(node, field, parent, "left")  # the default value is an expression

    # -- names ------------------------------------------------------------------
    def _name(self, node: Node, field: str | None, parent: Frame) -> Frame:
        name = identifier_name(self._text(node))
        if name not in self._relevant and not name.startswith("__"):
            return _OPAQUE
        bind = self._binding(parent, field)
        if bind is not None:
            bind.declare(name)
            return _OPAQUE
        member = None
        if parent.member is not None and field == "object":
            member = MemberAccess(*parent.member, parent.node)
        assigned = parent.assign is not None and field == parent.assign_field
        self.log.reference(
            name,
            Reference(
                name=name,
                node=node,
                call=parent.node if parent.type == "call_expression" and field == "function" else None,
                member=member,
                assignment=parent.assign if assigned else None,
                assigned_directly=assigned and parent.type not in MEMBERS,
                probed=parent.type == "unary_expression" and field == "argument" and _is_typeof(parent.node),
            ),
        )
        return _OPAQUE

    # -- members, calls, assignments ------------------------------------------------
    def _member(self, node: Node, field: str | None, parent: Frame) -> Frame:
        prop = node.child_by_field_name("property")
        name = identifier_name(self._text(prop)) if prop is not None else None
        return self._member_frame(node, field, parent, name)

    def _subscript(self, node: Node, field: str | None, parent: Frame) -> Frame:
        index = node.child_by_field_name("index")
        name = None
        # A name built at run time on the sketch's own objects is harmless: the world it runs in holds
        # nothing else to reach (docs/sandbox.md). Only `brush[...]` is refused for it (free_names.py).
        if index is not None and index.type == "string":
            name = string_value(self._text(index))
        return self._member_frame(node, field, parent, name)

    def _member_frame(self, node: Node, field: str | None, parent: Frame, name: str | None) -> Frame:
        if name is not None:
            code = self.rules.properties.get(name)
            if code:
                self._flag(V(code), f".{name[:SNIPPET_CHARS]} is not available to sketches", node)
        in_assignment = parent.assign is not None and field == parent.assign_field
        obj = node.child_by_field_name("object")
        if not in_assignment and (obj is None or obj.type != "identifier"):
            return parent.plain  # nothing for its children to know: `a.b.c` builds one frame, not two
        frame = Frame(node.type, node, parent.scope, parent.plain)
        called = parent.type == "call_expression" and field == "function"
        frame.member = (name, called, parent.type in ASSIGNMENTS and field == "left")
        if in_assignment:
            frame.assign, frame.assign_field = parent.assign, "object"
        return frame

    def _call(self, node: Node, field: str | None, parent: Frame) -> Frame:
        """A call or a unary operator: its children need to know which it is."""
        return Frame(node.type, node, parent.scope, parent.plain)

    def _assignment(self, node: Node, field: str | None, parent: Frame) -> Frame:
        frame = Frame(node.type, node, parent.scope, parent.plain)
        frame.assign, frame.assign_field = node, "left"
        return frame

    def _update(self, node: Node, field: str | None, parent: Frame) -> Frame:
        frame = Frame(node.type, node, parent.scope, parent.plain)
        frame.assign, frame.assign_field = node, "argument"
        return frame

    # -- literals and comments --------------------------------------------------------
    def _opaque(self, node: Node, field: str | None, parent: Frame) -> Frame:
        return _OPAQUE

    def _comment(self, node: Node, field: str | None, parent: Frame) -> Frame:
        self._comment_starts[node.end_byte] = node.start_byte
        return _OPAQUE

    # -- HTML-like comments: V8 reads them as comments in a classic script, tree-sitter (mostly) as code --
    def _html_comment(self, node: Node, field: str | None, parent: Frame) -> Frame:
        self._flag(V.HTML_COMMENT, _CLOSE_MESSAGE, node)
        return _OPAQUE

    def _decrement(self, node: Node, field: str | None, parent: Frame) -> Frame:
        if self.source[node.end_byte : node.end_byte + 1] == b">" and self._at_line_start(node.start_byte):
            self._flag(V.HTML_COMMENT, _CLOSE_MESSAGE, node)
        return _OPAQUE

    def _less_than(self, node: Node, field: str | None, parent: Frame) -> Frame:
        if self.source[node.end_byte : node.end_byte + 3] == b"!--":
            self._flag(V.HTML_COMMENT, "`<!--` starts a comment to the end of the line in a browser: use // for comments", node)
        return _OPAQUE

    def _at_line_start(self, position: int) -> bool:
        """Only whitespace and comments between the line's start (or a comment spanning lines) and `position`.
        Any non-ASCII byte counts as whitespace: erring that way can only refuse more."""
        source = self.source
        while position > 0:
            byte = source[position - 1]
            if byte == 0x0A:
                return True
            if byte in _WHITESPACE or byte >= 0x80:
                position -= 1
                continue
            start = self._comment_starts.get(position)
            if start is None:
                return False
            if source.find(b"\n", start, position) >= 0:
                return True
            position = start
        return True  # the start of the code is the start of a line of the page's script

    # -- syntax sketches may not use ------------------------------------------------------
    def _import(self, node: Node, field: str | None, parent: Frame) -> Frame:
        if parent.type == "call_expression":  # import statements are flagged as a whole
            self._flag(V.EXTERNAL_ACCESS, "import() is not available to sketches", node)
        return _OPAQUE

    def _module_syntax(self, node: Node, field: str | None, parent: Frame) -> Frame:
        self._flag(V.EXTERNAL_ACCESS, "import is not available to sketches", node)
        return parent.plain

    def _with(self, node: Node, field: str | None, parent: Frame) -> Frame:
        self._flag(V.REFLECTION, "with statements are not available to sketches", node)
        return parent.plain

    def _jsx(self, node: Node, field: str | None, parent: Frame) -> Frame:
        self._flag(V.SYNTAX_ERROR, f"JSX is not JavaScript: {self.findings.snippet(node)!r}", node)
        return _OPAQUE


def _is_typeof(unary: Node) -> bool:
    operator = unary.child_by_field_name("operator")
    return operator is not None and operator.type == "typeof"


_CLOSE_MESSAGE = "`-->` at the start of a line is a comment to the end of the line in a browser: use // for comments"

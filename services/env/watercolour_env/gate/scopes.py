"""Which references are free: names the sketch does not declare in any scope around them.

The sketch runs as the body of a strict-mode function, so `var` and function
parameters belong to the nearest function, `let`, `const`, `class` and (strict)
function declarations to the nearest block. A name is only known to be free
once the whole tree is read (`var` and functions are hoisted; `let` shadows
from the top of its block), so the walk records scope entries, exits and
references in order and `free_references` replays them afterwards with a
count of the names in scope: linear in the tree, however deep it nests.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar

Ref = TypeVar("Ref")


class Scope:
    __slots__ = ("function", "names")

    def __init__(self, parent: Scope | None, is_function: bool):
        self.function: Scope = self if is_function or parent is None else parent.function
        self.names: set[str] | tuple[()] = ()  # most scopes declare nothing that matters: no set for them

    def declare(self, name: str) -> None:
        if not self.names:
            self.names = set()
        self.names.add(name)


_ENTER, _EXIT, _REFERENCE = 0, 1, 2


class ScopeLog(Generic[Ref]):
    """What the walk saw, in document order; `free_references` resolves it."""

    def __init__(self) -> None:
        # Kinds and items side by side: a tuple per event would be garbage the collector keeps scanning.
        self._kinds = bytearray()
        self._items: list[object] = []

    def enter(self, parent: Scope | None, is_function: bool) -> Scope:
        scope = Scope(parent, is_function)
        self._kinds.append(_ENTER)
        self._items.append(scope)
        return scope

    def exit(self, scope: Scope) -> None:
        self._kinds.append(_EXIT)
        self._items.append(scope)

    def reference(self, name: str, ref: Ref) -> None:
        self._kinds.append(_REFERENCE)
        self._items.append((name, ref))

    def free_references(self) -> Iterator[Ref]:
        in_scope: dict[str, int] = {}
        for kind, item in zip(self._kinds, self._items, strict=True):
            if kind == _REFERENCE:
                name, ref = item
                if not in_scope.get(name):
                    yield ref
                continue
            step = 1 if kind == _ENTER else -1
            for name in item.names:
                in_scope[name] = in_scope.get(name, 0) + step

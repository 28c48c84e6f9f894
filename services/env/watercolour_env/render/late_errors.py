"""Which of a sketch's errors fail the gate: a rule on an error's phase and kind, never its message.

The recipe's rule: a sketch that throws inside `draw` after painting is scored
on what it painted, because an exception from the sketch's own logic (a typo, a
bad index) says nothing about the paint already on the canvas. Two exceptions:

- any error before draw (loading, setup) fails: nothing the sketch meant was painted;
- a RangeError fails however much was painted. V8 raises RangeError, and only
  RangeError, when a sketch exhausts what the engine allows: the stack, an
  array, string, typed array, buffer, BigInt, Map or Set past its maximum. A
  sketch could paint a little and then spend the render on such a bomb. The
  rule needs no list of V8's messages, which change between versions; the price
  is that an honest RangeError after painting (`toFixed(200)`) fails too.

Hangs and the memory watchdog are caught by the driver (render_timeout,
memory_limit) and fail the same way. The page keeps the first error of each
phase and kind past its record limit, so a flood of errors cannot hide one
that fails the sketch, and the verdict is the same on every run.
"""

from __future__ import annotations

from watercolour_env.render.page_report import ReportedError
from watercolour_shared.render_wire import Violation
from watercolour_shared.violations import ViolationCode as V

EXHAUSTION_KIND = "RangeError"
_BEFORE_DRAW = {"load", "setup", "presetup", "postsetup"}


def late_error_violations(errors: list[ReportedError], lines: list[str], painted: bool) -> list[Violation]:
    """`errors`: the page's own records and what the driver saw (phase `run`); `lines`: all of them as text."""
    found = []
    for error in errors:
        said = f"{error.phase}: {error.kind}: {error.message}"
        if error.kind == EXHAUSTION_KIND:
            reason = f"a RangeError in {error.phase} (V8's error for an exhausted stack, memory or engine limit)"
            found.append(Violation(code=V.MEMORY_LIMIT, message=f"{reason} fails however much was painted: {error.message}"))
        elif error.kind == "SyntaxError" and error.phase == "load":
            found.append(Violation(code=V.SYNTAX_ERROR, message=error.message))
        elif error.phase in _BEFORE_DRAW:
            found.append(Violation(code=V.RUNTIME_ERROR, message=said))
    if lines and not found and not painted:
        found.append(Violation(code=V.RUNTIME_ERROR, message=lines[0]))
    return found

"""Which of a sketch's errors fail the gate.

The recipe's rule: a sketch that throws inside `draw` after painting is scored
on what it painted, because an exception from the sketch's own logic (a typo, a
bad index) says nothing about the paint already on the canvas. An error that
exhausts the machine (an allocation that failed, a stack blown by recursion)
is hostile however much was painted first: a sketch could paint a little and
then spend the render on a bomb. Hangs and the memory watchdog are caught by
the driver (render_timeout, memory_limit) and fail the same way.
"""

from __future__ import annotations

import re

from watercolour_env.render.page_report import ReportedError
from watercolour_shared.render_wire import Violation
from watercolour_shared.violations import ViolationCode as V

# V8's messages for exhausted memory or stack.
_EXHAUSTION = re.compile(
    r"allocation failed|out of memory|Invalid (typed )?array length|Invalid string length|"
    r"Array buffer allocation|Maximum call stack size exceeded|Invalid array buffer length",
    re.IGNORECASE,
)
_BEFORE_DRAW = {"load", "setup", "presetup", "postsetup"}


def is_exhaustion(error: ReportedError) -> bool:
    return error.kind in ("RangeError", "Error", "InternalError") and bool(_EXHAUSTION.search(error.message))


def late_error_violations(
    errors: list[ReportedError], page_errors: list[str], lines: list[str], painted: bool
) -> list[Violation]:
    """Strict, except that an honest error in draw after painting is scored on what it painted.

    `page_errors` are what the driver itself saw (Playwright's pageerror): exhaustion there
    counts too, whether or not the page's own listeners recorded it before the readback."""
    found = [Violation(code=V.MEMORY_LIMIT, message=f"run: {message}") for message in page_errors if _EXHAUSTION.search(message)]
    for error in errors:
        if is_exhaustion(error):
            found.append(Violation(code=V.MEMORY_LIMIT, message=f"{error.phase}: {error.kind}: {error.message}"))
        elif error.kind == "SyntaxError" and error.phase == "load":
            found.append(Violation(code=V.SYNTAX_ERROR, message=error.message))
        elif error.phase in _BEFORE_DRAW:
            found.append(Violation(code=V.RUNTIME_ERROR, message=f"{error.phase}: {error.message}"))
    if lines and not found and not painted:
        found.append(Violation(code=V.RUNTIME_ERROR, message=lines[0]))
    return found

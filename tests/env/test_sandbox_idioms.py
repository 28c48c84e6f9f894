"""Honest JavaScript the sandbox once refused (issue 43 class 4), through the whole gate and a real
render; and what the relaxed rules could be used for, still refused or inert (docs/sandbox.md).

Members named `eval`, `fetch` or `pixels` were refused by name, though nothing in the sketch's world
has such a member. Assigning a property a frozen built-in prototype has (`this.name` in an Error
subclass, `Shape.prototype.toString`) threw: such properties are now overridable on the sketch's own
objects, as in hardened JavaScript (SES), and still refused on the built-in prototypes themselves.
Every case is rendered twice with one seed: one verdict, one picture.
"""

import numpy as np
import pytest

from tests.conftest import fresh_seed, pixels
from tests.env.test_sandbox_world import PAINT_FIRST, cheat, codes
from watercolour_shared.violations import ViolationCode as V

SAME_PICTURE_MAX_CHANGED = 0.005  # as tests/env/test_render_facts.py
PAINT = "brush.fill('#b83b5e', 200); brush.circle(300, 300, 200);"


def check(condition: str, what: str) -> str:
    return f"if (!({condition})) throw new Error({what!r});"


HONEST = {
    "a method named eval": "const tool = { eval(x) { return x * 2; } };" + check("tool.eval(3) === 6", "eval"),
    "a class method named fetch": "class Net { fetch(n) { return n + 1; } }" + check("new Net().fetch(1) === 2", "fetch"),
    "a field named pixels": (
        "const grid = { pixels: [] }; grid.pixels.push(1); grid['pixels'].push(2);" + check("grid.pixels.length === 2", "pixels")
    ),
    "an Error subclass that names itself": (
        "class PaintError extends Error { constructor(m) { super(m); this.name = 'PaintError'; } }"
        "let caught; try { throw new PaintError('wet'); } catch (e) { caught = e; }"
        + check("caught.name === 'PaintError' && String(caught) === 'PaintError: wet' && caught instanceof Error", "subclass")
    ),
    "an ES5 error type": (
        "function OldError(m) { this.message = m; } OldError.prototype = Object.create(Error.prototype);"
        "OldError.prototype.constructor = OldError; OldError.prototype.name = 'OldError';"
        + check("String(new OldError('dry')) === 'OldError: dry' && new OldError('x').constructor === OldError", "es5")
    ),
    "toString on its own prototype": (
        "function Shape(r) { this.r = r; } Shape.prototype.toString = function () { return 'Shape ' + this.r; };"
        "Shape.prototype.valueOf = function () { return this.r; };"
        + check("String(new Shape(2)) === 'Shape 2' && new Shape(2) + 1 === 3", "prototype")
    ),
    "toString on its own object and function": (
        "const o = {}; o.toString = () => 'o'; const f = function () {}; f.toString = () => 'f';"
        + check("`${o}${f}` === 'of' && String({}) === '[object Object]'", "object")
    ),
    "a NUL in a comment, a string and a template": (
        "// a note \x00 here\n/* and \x00 here */ const s = 'a\x00b'; const t = `c\x00d`;"
        + check("s.length === 3 && t.charCodeAt(1) === 0", "nul")
    ),
}


def changed_share(a, b) -> float:
    return float((np.abs(pixels(a) - pixels(b)).max(axis=2) > 16).mean())


async def render_twice(services, sketch: str):
    first = await services.renderer.render(sketch, seed=5)
    second = await services.renderer.render(sketch, seed=5)
    assert (first.status, codes(first)) == (second.status, codes(second)), (first.violations, second.violations)
    if first.png_base64 and second.png_base64:
        assert changed_share(first, second) < SAME_PICTURE_MAX_CHANGED
    return first


@pytest.mark.parametrize("case", HONEST)
async def test_honest_javascript_passes_the_whole_gate(services, case):
    sketch = cheat(HONEST[case] + PAINT)
    assert services.pipeline.gate(sketch)[1] == []
    result = await render_twice(services, sketch)
    assert result.status == "passed", (result.violations, result.errors)
    assert not result.errors


# A member named pixels, eval or fetch reaches nothing: no value in the world has one, and what the sketch
# may assign to one lands on its own object. Each attempt paints only if something was reached.
INERT = {
    "members of everything in reach": (
        "const reach = [color(0), random, Math, JSON, Object, Array.prototype, Object.prototype, Date,"
        " (() => 0).constructor.prototype, Error.prototype, console, Promise.resolve(), new Map(), [], {}, '', 0, width, WEBGL];"
        "const kept = ['drawingContext', 'loadPixels', 'updatePixels', 'getContext', 'elt', '_renderer', 'sendBeacon'];"
        "if (reach.some((r) => r.pixels !== undefined || r.eval !== undefined || r.fetch !== undefined"
        " || kept.some((k) => r[k] !== undefined))) {" + PAINT + "}"
    ),
    "a colour handle's pixels written": "const c = color(0); c.pixels = [255, 0, 0]; brush.fill(c, 200);" + PAINT,
    "eval through the Function constructor": "const e = [].constructor.constructor('return eval')(); e('1');" + PAINT,
    "fetch on the sketch's own this": "function go() { return this.fetch('http://127.0.0.1:9/'); } go();" + PAINT,
}


@pytest.mark.parametrize("case", INERT)
async def test_a_member_named_so_reaches_nothing(services, case):
    sketch = cheat(INERT[case])
    assert services.pipeline.gate(sketch)[1] == [], "the static gate lets it through: the world must stop it"
    result = await render_twice(services, sketch)
    assert result.status == "failed", (result.violations, result.errors)
    assert result.paint_fraction is not None and result.paint_fraction < 0.005, result.errors


async def test_brush_has_no_such_member_at_run_time(renderer):
    result = await render_twice_renderer(renderer, "brush.pixels; brush.eval('1');" + PAINT)
    assert V.UNKNOWN_BRUSH_METHOD in codes(result)


async def render_twice_renderer(renderer, body: str):
    first = await renderer.render(cheat(body), seed=5)
    second = await renderer.render(cheat(body), seed=5)
    assert (first.status, codes(first)) == (second.status, codes(second))
    return first


# The override fix makes an inherited built-in property writable on the sketch's own objects only: on
# the built-in prototypes themselves every way of writing is refused, so p5 and p5.brush never see it.
BUILT_IN_WRITES = {
    "Object.prototype.toString": "Object.prototype.toString = () => '[object Array]';",
    "Object.prototype.valueOf": "Object.prototype.valueOf = () => 0;",
    "Error.prototype.name": "Error.prototype.name = 'Nothing';",
    "TypeError.prototype.name": "TypeError.prototype.name = 'Nothing';",
    "Array.prototype.toString": "Array.prototype.toString = () => '';",
    "Function.prototype.toString": "Function.prototype.toString = () => '';",
    "through the setter": (
        "const d = Object.getOwnPropertyDescriptor(Object.prototype, 'toString'); d.set.call(Object.prototype, () => '');"
    ),
    "through the setter onto another prototype": (
        "const d = Object.getOwnPropertyDescriptor(Object.prototype, 'hasOwnProperty'); d.set.call(Array.prototype, () => 1);"
    ),
    "through the setter onto a world value": (
        "const d = Object.getOwnPropertyDescriptor(Object.prototype, 'toString'); d.set.call(random, () => '');"
    ),
    "redefined": "Object.defineProperty(Object.prototype, 'toString', { value: () => '' });",
    "the getter's value mutated": "const s = Object.prototype.toString; s.call = () => 0; Object.setPrototypeOf(s, null);",
}


@pytest.mark.parametrize("case", BUILT_IN_WRITES)
async def test_a_built_in_prototype_stays_as_it_was(renderer, case):
    # It throws before painting: a write that took would let the circle paint.
    result = await render_twice_renderer(renderer, BUILT_IN_WRITES[case] + PAINT)
    assert result.status == "failed", (result.violations, result.errors)
    assert result.paint_fraction is not None and result.paint_fraction < 0.005
    assert any("TypeError" in error for error in result.errors), result.errors


async def test_the_setter_onto_brush_is_a_violation(renderer):
    body = "const d = Object.getOwnPropertyDescriptor(Object.prototype, 'toString'); d.set.call(brush, () => '');"
    result = await render_twice_renderer(renderer, PAINT_FIRST + body)
    assert V.MONKEY_PATCH in codes(result)


async def test_an_error_named_by_the_sketch_is_judged_by_its_kind(renderer):
    """A late error the sketch named itself is an ordinary error, scored on the paint; exhaustion still fails."""
    named = "class PaintError extends Error { constructor(m) { super(m); this.name = 'PaintError'; } }"
    late = await render_twice_renderer(renderer, PAINT_FIRST + named + "throw new PaintError('late');")
    assert late.status == "passed", late.violations
    assert any("PaintError: late" in error for error in late.errors), late.errors
    overflow = await render_twice_renderer(renderer, PAINT_FIRST + named + "const f = (n) => f(n + 1) + 1; f(0);")
    assert overflow.status == "failed"
    assert codes(overflow) & {V.MEMORY_LIMIT, V.RENDER_TIMEOUT}, (overflow.violations, overflow.errors)


async def test_a_nul_in_a_comment_passes_the_whole_pipeline(services):
    """A reply carrying a NUL reaches the gate as it is (the wire refuses none), is gated, rendered and cached."""
    sketch = cheat("// a note \x00 here\n" + PAINT)
    result = await services.pipeline.run(sketch, seed=fresh_seed())
    assert result.status == "passed", (result.violations, result.errors)
    assert "\x00" in result.code

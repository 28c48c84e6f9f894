"""The sketch's world, proven without the static gate in front of it: adversarial sketches
by class (docs/sandbox.md), each sent straight to the renderer.

Every cheat makes one recorded painting call off the canvas, so that only the cheat itself
could put paint on the sheet: a cheat that got through would pass the gate.
"""

import pytest

from watercolour_shared.violations import ViolationCode as V

SETUP = "function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); noLoop(); }\n"
DECOY = "translate(-width / 2, -height / 2); background('#fff'); brush.noStroke(); brush.circle(-5000, -5000, 1);"


def cheat(body: str, top: str = "") -> str:
    return f"{top}\n{SETUP}function draw() {{ {DECOY}\n{body}\n}}\n"


def codes(result) -> set[V]:
    return {violation.code for violation in result.violations}


# Class 1: p5's own drawing, pixel, buffer, file and geometry functions; the DOM; WebGL.
P5_ITSELF = {
    "flat ellipse": ("fill(200, 0, 0); ellipse(300, 300, 400);", V.BARE_P5_PRIMITIVE),
    "spline": ("stroke(0); strokeWeight(80); spline(0, 0, 100, 100, 500, 500, 600, 600);", V.OFFLIST_NAME),
    "file writer": ("saveStrings(['a'], 'a.txt'); ellipse(300, 300, 400);", V.OFFLIST_NAME),
    "storage writer": ("storeItem('k', 'v'); ellipse(300, 300, 400);", V.OFFLIST_NAME),
    "geometry builder": ("const g = buildGeometry(() => sphere(200)); model(g);", V.OFFLIST_NAME),
    "raw WebGL": ("drawingContext.clearColor(1, 0, 0, 1); drawingContext.clear(16384);", V.RAW_CONTEXT),
    "pixels": ("loadPixels(); for (let i = 0; i < 1440000; i++) pixels[i] = 0; updatePixels();", V.PIXEL_WRITE),
    "offscreen buffer": ("const g = createGraphics(600, 600); g.background(0); image(g, 0, 0);", V.OFFSCREEN_BUFFER),
    "a canvas of its own": ("document.body.appendChild(document.createElement('canvas'));", V.DOM_ACCESS),
}

# Class 2: the same functions reached past a static reading: members of the global object or of
# p5, aliases, odd callees, escapes, destructuring, names built at run time, HTML-like comments.
INDIRECT = {
    "global object member": ("globalThis.fill(200, 0, 0); globalThis.ellipse(300, 300, 400);", V.DOM_ACCESS),
    "window computed name": ("window['ell' + 'ipse'](300, 300, 400);", V.DOM_ACCESS),
    "self and top": ("self.ellipse(300, 300, 400); top.ellipse(300, 300, 400);", V.DOM_ACCESS),
    "p5 instance": ("p5.instance.ellipse(300, 300, 400);", V.OFFLIST_NAME),
    "alias": ("const e = ellipse; e(300, 300, 400);", V.BARE_P5_PRIMITIVE),
    "comma callee": ("(0, ellipse)(300, 300, 400);", V.BARE_P5_PRIMITIVE),
    "call and apply": ("ellipse.call(null, 300, 300, 400); rect.apply(null, [0, 0, 600, 600]);", V.BARE_P5_PRIMITIVE),
    "unicode escape": ("\\u0065llipse(300, 300, 400);", V.BARE_P5_PRIMITIVE),
    "destructured from the global object": ("const { ellipse: e } = globalThis; e(300, 300, 400);", V.DOM_ACCESS),
    "name built at run time": ("const n = ['ell', 'ipse'].join(''); globalThis[n](300, 300, 400);", V.DOM_ACCESS),
    "html comment hides a line": ("let x = 1 <!-- a comment to V8 only\nellipse(300, 300, 400);", V.BARE_P5_PRIMITIVE),
    "timer": ("setTimeout(() => 0, 0);", V.OFFLIST_NAME),
    "the recorder": ("__wcReport.then(() => 0);", V.OFFLIST_NAME),
    "the scope object as this": ("grab = function () { return this; }; grab().ellipse(300, 300, 400);", V.BARE_P5_PRIMITIVE),
}


@pytest.mark.parametrize("case", [*P5_ITSELF, *INDIRECT])
async def test_a_name_outside_the_world_is_a_violation(renderer, case):
    body, code = {**P5_ITSELF, **INDIRECT}[case]
    result = await renderer.render(cheat(body), seed=1)
    assert result.status == "failed"
    assert code in codes(result), result.violations


# Paths that need no name: all of them end in an error, none of them paints.
NAMELESS = {
    "sloppy this": "(function () { return this; })().ellipse(300, 300, 400);",
    "this in draw": "this.ellipse(300, 300, 400);",
    "Function from a literal": "(() => 0).constructor('return this')().ellipse(300, 300, 400);",
    "async Function from a literal": "(async () => 0).constructor('return this')();",
    # Class 3: what brush hands back, and the built-ins it forwards through.
    "brush's return value": "brush.beginShape(0); brush.vertex(0, 0); brush.endShape(CLOSE).constructor;",
    "replaced apply": "Function.prototype.apply = function (t) { this.t = t; }; brush.circle(300, 300, 200);",
    "replaced Array.prototype.push": "Array.prototype.push = function (x) { globalThis.x = x; }; brush.circle(300, 300, 200);",
    "stack trace hook": "Error.prepareStackTrace = (e, frames) => frames.map((f) => f.getThis());",
    "getter deputy": "brush.vertex({ valueOf() { return 1; } }, 2);",
    "caller of a wrapper": "brush.circle.caller;",
    "iterator helper prototype": "Object.defineProperty(Object.getPrototypeOf([].values().map((x) => x)), 'next', { value: 0 });",
    "RegExp legacy statics": "RegExp.input = 'x';",
}


@pytest.mark.parametrize("case", NAMELESS)
async def test_a_path_without_a_name_reaches_nothing(renderer, case):
    result = await renderer.render(cheat(NAMELESS[case]), seed=1)
    assert result.status == "failed"
    assert result.paint_fraction is not None and result.paint_fraction < 0.005, result.errors
    assert result.errors, "the attempt should end in an error"


async def test_brush_internals_are_out_of_reach(renderer):
    result = await renderer.render(cheat("const p = brush.polygon([[0, 0], [600, 0], [600, 600]]);"), seed=1)
    assert V.OFFLIST_BRUSH_METHOD in codes(result)


async def test_a_dynamic_import_of_our_own_files_is_refused(renderer):
    # The world's clock is virtual (test_sandbox_determinism.py): the request gets its time from work.
    again = "import('/lib/p5.min.js?again'); let s = 0; for (let i = 0; i < 3e8; i++) s += i & 1;"
    result = await renderer.render(cheat(again), seed=1)
    assert V.EXTERNAL_ACCESS in codes(result)


# Class 6: quiet escapes raise a report in the page, before the readback.
QUIET = {
    "WebRTC": ("new RTCPeerConnection();", V.EXTERNAL_ACCESS),
    "storage": ("localStorage.setItem('a', 'b');", V.DOM_ACCESS),
    "preconnect link": ("document.head.innerHTML = '<link rel=preconnect href=http://127.0.0.1:9>';", V.DOM_ACCESS),
    "network just before readback": ("Promise.resolve().then(() => fetch('http://127.0.0.1:9/'));", V.EXTERNAL_ACCESS),
}


@pytest.mark.parametrize("case", QUIET)
async def test_quiet_escapes_are_reported(renderer, case):
    body, code = QUIET[case]
    result = await renderer.render(cheat(body), seed=1)
    assert code in codes(result)


# Class 7: an error that exhausts the machine fails however much was painted before it.
PAINT_FIRST = "brush.fill('#b83b5e', 200); brush.circle(300, 300, 200);"
HOSTILE_LATE = {
    "typed array bomb": "const a = new Float64Array(1e12);",
    "string bomb": "let s = 'x'; while (true) s += s;",
    "stack overflow": "const f = (n) => f(n + 1) + 1; f(0);",
    "heap bomb": "const hoard = []; while (true) { hoard.push({ a: [1, 2, 3], b: 'x' + hoard.length }); }",
    "exhaustion in a late promise": "(async () => { const f = (n) => f(n + 1) + 1; f(0); })();",
}


@pytest.mark.parametrize("case", HOSTILE_LATE)
async def test_a_hostile_late_error_fails_however_much_was_painted(renderer, case):
    result = await renderer.render(cheat(PAINT_FIRST + HOSTILE_LATE[case]), seed=1)
    assert codes(result) & {V.MEMORY_LIMIT, V.RENDER_TIMEOUT}, (result.violations, result.errors)


async def test_an_honest_late_error_is_still_scored_on_the_paint(renderer):
    result = await renderer.render(cheat(PAINT_FIRST + "const petals = undefined; petals.forEach((p) => p);"), seed=1)
    assert result.status == "passed", result.violations
    assert any("TypeError" in error for error in result.errors)


async def test_colours_cross_as_handles(renderer):
    body = (
        "const a = color('#b83b5e'); const b = lerpColor(a, color(40, 80, 160), 0.5); b.setAlpha(180);"
        "brush.fill(b, 200); brush.circle(300, 300, 200);"
        "if (red(a) !== 184 || typeof b.toString() !== 'string' || Object.keys(b).includes('levels')) throw new Error('x');"
    )
    result = await renderer.render(cheat(body), seed=1)
    assert result.status == "passed", (result.violations, result.errors)
    assert not result.errors


async def test_random_hands_back_the_sketchs_own_list_items(renderer):
    body = "const pick = random([color('#b83b5e'), [184, 59, 94]]); brush.fill(pick, 200); brush.circle(300, 300, 200);"
    result = await renderer.render(cheat(body), seed=1)
    assert result.status == "passed", (result.violations, result.errors)


async def test_arguments_are_copied_within_one_budget(renderer):
    grow = "const a = [0, 0]; Object.defineProperty(a, 0, { get() { a.length = 5e6; return 0; } });"
    shared = "let s = [1]; for (let i = 0; i < 3; i++) s = new Array(1000).fill(s);"
    result = await renderer.render(cheat(PAINT_FIRST + grow + "lerp(a, 0, 0);" + shared + "max(s);"), seed=1)
    assert any("more than" in error for error in result.errors), result.errors


async def test_a_thrown_value_cannot_run_code_in_our_handlers(renderer):
    hostile = "function setup() { createCanvas(600, 600, WEBGL); noLoop(); throw { get name() { throw 0; } }; }\n"
    result = await renderer.render(f"{hostile}function draw() {{ {DECOY} }}\n", seed=1)
    assert V.RUNTIME_ERROR in codes(result)
    assert V.RENDER_TIMEOUT not in codes(result)


async def test_one_frame_is_drawn_and_scored(renderer):
    looping = "function setup() { createCanvas(600, 600, WEBGL); }\n"
    result = await renderer.render(f"{looping}function draw() {{ {DECOY} {PAINT_FIRST} }}\n", seed=1)
    assert result.brush_calls["circle"] == 2


async def test_code_that_closes_its_wrapper_is_a_syntax_error_to_v8(renderer):
    escape = '}; } }); ellipse(300, 300, 400); window.__wc.sketch(function (s) { with (s) { return function () { "use strict";'
    result = await renderer.render(cheat(escape), seed=1)
    assert V.SYNTAX_ERROR in codes(result)
    assert result.paint_fraction is None


async def test_a_slow_sketch_is_reported_and_keeps_its_verdict(renderer, monkeypatch):
    # The world's clock is virtual, so a sketch cannot wait on it: it works, for longer than a share of
    # its deadline made small here (about a second of a loop, on any machine, is past 0.1 s).
    monkeypatch.setattr("watercolour_env.render.renderer.SLOW_SHARE", 0.1 / renderer.settings.render_deadline_s)
    body = "let s = 0; for (let i = 0; i < 1e9; i++) s += i & 1;" + PAINT_FIRST
    result = await renderer.render(cheat(body), seed=1)
    assert result.status == "passed", result.violations
    assert any(warning.startswith("slow:") for warning in result.warnings)

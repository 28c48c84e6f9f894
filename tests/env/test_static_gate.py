"""One case per static violation code, each against a skeleton that passes on its own."""

import pytest

from tests.conftest import ROOT
from watercolour_env.gate.static import analyse
from watercolour_shared.violations import ViolationCode as V

SETUP = "function setup() {\n  createCanvas(600, 600, WEBGL);\n  angleMode(DEGREES);\n  noLoop();\n}\n"
PAINT = "brush.noStroke();\n  brush.fill('#e07a5f', 120);\n  brush.circle(300, 300, 80, 0.2);\n"


def sketch_with(extra: str = "", setup: str = SETUP) -> str:
    return f"{setup}function draw() {{\n  translate(-width / 2, -height / 2);\n  background('#f6f1e7');\n  {PAINT}  {extra}\n}}\n"


def codes(code: str, rules) -> set[V]:
    return {violation.code for violation in analyse(code, rules)}


def test_skeleton_passes(rules):
    assert analyse(sketch_with(), rules) == []


def test_example_flower_passes(rules):
    assert analyse((ROOT / "examples" / "flower.js").read_text(), rules) == []


CASES = [
    (V.BARE_P5_PRIMITIVE, "fill(255, 0, 0); ellipse(10, 10, 5);"),
    (V.TEXT_LABEL, "text('hibiscus', 10, 10);"),
    (V.UNKNOWN_BRUSH_METHOD, "brush.watercolor(1, 2);"),
    (V.OFFLIST_BRUSH_METHOD, "brush.hatch(5, 45);"),
    (V.EXTERNAL_ACCESS, "fetch('/palette.json');"),
    (V.EXTERNAL_ACCESS, "const request = new XMLHttpRequest();"),
    (V.EXTERNAL_ACCESS, "const socket = new WebSocket('ws://127.0.0.1:1');"),
    (V.EXTERNAL_ACCESS, "loadImage('flower.png');"),
    (V.EXTERNAL_ACCESS, "createImg('flower.png', 'a flower');"),
    (V.EXTERNAL_ACCESS, "eval('brush.circle(1, 1, 1)');"),
    (V.EXTERNAL_ACCESS, "const paint = Function('return 1');"),
    (V.EXTERNAL_ACCESS, "const texture = 'data:image/png;base64,iVBORw0KGgo=';"),
    (V.EXTERNAL_ACCESS, "import('./more.js');"),
    (V.BRUSH_ALIAS, "const b = brush; b.circle(1, 2, 3);"),
    (V.BRUSH_ALIAS, "const paint = brush.circle; paint(1, 2, 3);"),
    (V.COMPUTED_ACCESS, "brush['ha' + 'tch'](5);"),
    (V.COMPUTED_ACCESS, "const name = 'hatch'; brush[name](5);"),
    (V.MONKEY_PATCH, "brush.fill = function () {};"),
    (V.MONKEY_PATCH, "Math.random = () => 0.5;"),
    (V.REFLECTION, "[].constructor.constructor('return 1')();"),
    (V.REFLECTION, "Object.defineProperty(this, 'x', {});"),
    (V.RAW_CONTEXT, "drawingContext.fillRect(0, 0, 10, 10);"),
    (V.RAW_CONTEXT, "const gl = this._renderer.GL;"),
    (V.OFFSCREEN_BUFFER, "const layer = createGraphics(600, 600);"),
    (V.PIXEL_WRITE, "loadPixels(); pixels[0] = 255; updatePixels();"),
    (V.DOM_ACCESS, "document.body.style.background = 'red';"),
    (V.DOM_ACCESS, "createDiv('hello');"),
    (V.DOM_ACCESS, "alert('hi');"),
    (V.STRING_TIMER, "setTimeout('brush.circle(1, 1, 1)', 10);"),
]


@pytest.mark.parametrize(("code", "extra"), CASES, ids=[f"{c.value}:{e[:24]}" for c, e in CASES])
def test_violation_is_found(rules, code, extra):
    assert code in codes(sketch_with(extra), rules)


def test_no_setup(rules):
    assert V.NO_SETUP in codes(sketch_with(setup="createCanvas(600, 600, WEBGL);\n"), rules)


def test_let_setup_does_not_define_the_p5_function(rules):
    assert V.NO_SETUP in codes(sketch_with(setup="let setup = () => createCanvas(600, 600, WEBGL);\n"), rules)


def test_canvas_not_webgl(rules):
    assert V.CANVAS_NOT_WEBGL in codes(sketch_with(setup=SETUP.replace(", WEBGL", "")), rules)


def test_canvas_size(rules):
    assert V.CANVAS_SIZE in codes(sketch_with(setup=SETUP.replace("600, 600", "100000, 100000")), rules)


def test_no_painting_call(rules):
    assert V.NO_PAINTING_CALL in codes(sketch_with().replace("brush.circle(300, 300, 80, 0.2);", ""), rules)


def test_truncated(rules):
    code = sketch_with()
    assert codes(code[: len(code) // 2], rules) == {V.TRUNCATED}


def test_syntax_error(rules):
    assert codes(sketch_with("let = = 3;"), rules) == {V.SYNTAX_ERROR}


def test_comments_strings_and_lookalike_names_never_trip_it(rules):
    extra = (
        "// fetch('x'); brush.hatch(); document.write(); eval(1)\n"
        "  /* text('label') loadImage() */\n"
        "  const prefetchPalette = ['fetch', 'text', 'eval', 'brush.hatch'];\n"
        "  const textured = { fill: '#fff', document: 1 };\n"
        "  const documented = prefetchPalette.length;"
    )
    assert analyse(sketch_with(extra), rules) == []


def test_modern_syntax_is_understood(rules):
    extra = "const size = globalScale?.value ?? 3; const { a = 1, ...rest } = { b: 2 }; const n = 1_000;"
    assert V.SYNTAX_ERROR not in codes(sketch_with(extra), rules)


def test_violations_carry_line_numbers(rules):
    code = sketch_with("brush.hatch(5);")
    expected = code.splitlines().index("  brush.hatch(5);") + 1
    found = analyse(code, rules)
    assert [v.line for v in found if v.code == V.OFFLIST_BRUSH_METHOD] == [expected]

"""The sandbox page's own defences, proven without the static gate in front of it:
each sketch here goes straight to the renderer, as if no static rule had seen it."""

import asyncio
import socket
import threading

import pytest

from tests.conftest import sketch
from watercolour_shared.violations import ViolationCode as V

SETUP = "function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); noLoop(); }\n"
PAINT = "translate(-width / 2, -height / 2); background('#fff'); brush.noStroke(); brush.fill('#b83b5e', 200);"


def draw(body: str, setup: str = SETUP) -> str:
    return f"{setup}function draw() {{ {PAINT} {body} }}\n"


def codes(result) -> set[V]:
    return {violation.code for violation in result.violations}


async def test_a_plain_sketch_paints(renderer):
    result = await renderer.render(sketch("two-washes.js"), seed=1)
    assert result.status == "passed", result.violations
    assert result.paint_fraction > 0.005
    assert result.brush_calls["circle"] == 1
    assert result.png_base64


RUN_TIME_CASES = {
    "offlist method through an alias": ("brush.circle(300, 300, 100); const b = brush; b.hatch(5, 45);", V.OFFLIST_BRUSH_METHOD),
    "unknown method by a computed name": ("brush.circle(300, 300, 100); brush['water' + 'color']();", V.UNKNOWN_BRUSH_METHOD),
    "monkey-patched brush": ("brush.circle = () => 0; brush.circle(300, 300, 100);", V.MONKEY_PATCH),
    "painting only in a dead branch": ("if (width < 0) { brush.circle(300, 300, 100); }", V.NO_PAINTING_CALL),
    "paint off the canvas": ("brush.circle(-500, -500, 2);", V.BLANK_CANVAS),
}


@pytest.mark.parametrize("case", RUN_TIME_CASES)
async def test_run_time_violation_is_caught_without_the_static_gate(renderer, case):
    body, code = RUN_TIME_CASES[case]
    result = await renderer.render(draw(body), seed=1)
    assert code in codes(result)


async def test_syntax_error_is_reported(renderer):
    result = await renderer.render(SETUP + "function draw() { brush.circle(1, 1 }", seed=1)
    assert V.SYNTAX_ERROR in codes(result)


async def test_error_in_setup_fails(renderer):
    result = await renderer.render(draw("brush.circle(300, 300, 100);", setup="function setup() { nope(); }\n"), seed=1)
    assert V.RUNTIME_ERROR in codes(result)
    assert any("nope" in error for error in result.errors)


async def test_error_in_draw_after_painting_is_admitted_and_scored_on_the_paint(renderer):
    result = await renderer.render(draw("brush.circle(300, 300, 150, 0.3); undefinedHelper();"), seed=1)
    assert result.status == "passed", result.violations
    assert result.paint_fraction > 0.005
    assert any("undefinedHelper" in error for error in result.errors)


async def test_error_in_draw_before_painting_fails(renderer):
    result = await renderer.render(draw("undefinedHelper(); brush.circle(300, 300, 150);"), seed=1)
    assert V.RUNTIME_ERROR in codes(result)


async def test_huge_canvas_is_refused(renderer):
    huge = "function setup() { createCanvas(100000, 100000, WEBGL); }\n"
    result = await renderer.render(draw("brush.circle(1, 1, 1);", setup=huge), seed=1)
    assert V.CANVAS_SIZE in codes(result)


async def test_alert_does_not_block_the_page(renderer):
    result = await renderer.render(draw("alert('hi'); confirm('sure?'); brush.circle(300, 300, 150);"), seed=1)
    assert V.DOM_ACCESS in codes(result)
    assert result.paint_fraction > 0.005


async def test_eval_is_out_of_reach_and_code_from_strings_is_blocked_by_the_page_policy(renderer):
    by_name = await renderer.render(draw("brush.circle(300, 300, 150); eval('1 + 1');"), seed=1)
    assert V.EXTERNAL_ACCESS in codes(by_name)
    # The Function constructor stays reachable through any function literal: the page policy refuses it.
    by_literal = await renderer.render(draw("brush.circle(300, 300, 150); (() => 0).constructor('return 1')();"), seed=1)
    assert any("EvalError" in error for error in by_literal.errors)


class _ConnectionRecorder:
    """A local TCP server that records whether anything connected to it."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self):
        while not self._stop.is_set():
            try:
                connection, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            connection.close()

    def close(self):
        self._stop.set()
        self._thread.join()
        self.sock.close()


@pytest.fixture
def listener():
    recorder = _ConnectionRecorder()
    yield recorder
    recorder.close()


@pytest.mark.parametrize(
    "escape",
    [
        "fetch('http://127.0.0.1:{port}/steal');",
        "new Image().src = 'http://127.0.0.1:{port}/pixel';",
        "document.body.innerHTML = '<img src=\"http://localhost:{port}/dom\">';",
        "const s = new WebSocket('ws://127.0.0.1:{port}/'); ",
        "window.location = 'http://127.0.0.1:{port}/away';",
    ],
    ids=["fetch", "image", "dom", "websocket", "navigation"],
)
async def test_no_request_leaves_the_page(renderer, listener, escape):
    body = "brush.circle(300, 300, 150); " + escape.format(port=listener.port)
    result = await renderer.render(draw(body), seed=1)
    await asyncio.sleep(0.5)
    assert listener.connections == 0
    assert result.status != "unavailable"


async def test_endless_loop_is_killed_and_the_next_render_is_clean(renderer, settings):
    killed_before = renderer.browsers.stats["killed"]
    result = await renderer.render(draw("while (true) {} brush.circle(1, 1, 1);"), seed=1)
    assert codes(result) == {V.RENDER_TIMEOUT}
    assert renderer.browsers.stats["killed"] == killed_before + 1
    follow_up = await renderer.render(sketch("two-washes.js"), seed=2)
    assert follow_up.status == "passed"
    assert follow_up.timings.total_ms < settings.render_deadline_s * 1000 / 2


async def test_memory_bomb_is_stopped_and_the_next_render_is_clean(renderer):
    bomb = "const hoard = []; while (true) { hoard.push({ a: [1, 2, 3], b: 'x' + hoard.length }); }"
    result = await renderer.render(draw(bomb), seed=1)
    assert codes(result) == {V.MEMORY_LIMIT}
    follow_up = await renderer.render(sketch("two-washes.js"), seed=3)
    assert follow_up.status == "passed"


async def test_typed_array_bomb_fails_cleanly(renderer):
    bomb = "const hoard = []; while (true) { hoard.push(new Float64Array(5e7)); } brush.circle(1, 1, 1);"
    result = await renderer.render(draw(bomb), seed=1)
    assert result.status == "failed"
    assert codes(result) & {V.MEMORY_LIMIT, V.RUNTIME_ERROR}


async def test_thousands_of_shapes_get_an_answer_and_leave_the_pool_healthy(renderer):
    many = "for (let i = 0; i < 3000; i++) { brush.circle(50 + (i * 37) % 500, 50 + (i * 53) % 500, 4); }"
    result = await renderer.render(draw(many), seed=1)
    assert result.status in ("passed", "failed")
    follow_up = await renderer.render(sketch("two-washes.js"), seed=4)
    assert follow_up.status == "passed"

"""Class 4: the verdict is built from what the driver saw and a report the server checks as
untrusted input. Any report that does not hold up fails the rollout (0), never `unavailable`."""

import base64
import io
import json
import struct
import zlib

import pytest
from PIL import Image

from watercolour_env.render.page_report import max_report_chars
from watercolour_env.render.page_run import PageRun
from watercolour_env.render.renderer import Renderer
from watercolour_shared.render_wire import Timings
from watercolour_shared.violations import ViolationCode as V


@pytest.fixture(scope="module")
def verdict(settings, rules):
    renderer = Renderer(settings, rules)  # never started: the verdict needs no browser
    return lambda report: renderer._verdict(PageRun(report=report), Timings())


def painted_png(size: int = 600) -> bytes:
    image = Image.new("RGB", (size, size), "white")
    image.paste((184, 59, 94), (100, 100, 400, 400))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def report(**overrides) -> str:
    fields = {
        "dataUrl": "data:image/png;base64," + base64.b64encode(painted_png()).decode(),
        "canvas": {"width": 600, "height": 600, "webgl": True},
        "errors": [],
        "violations": [],
        "brushCalls": {"circle": 1},
        "marks": {"setupStart": 1.0, "drawEnd": 2.0},
    }
    return json.dumps({**fields, **overrides})


def test_an_honest_report_passes(verdict):
    result = verdict(report())
    assert result.status == "passed", result.violations
    assert result.paint_fraction > 0.2


MALFORMED = {
    "unknown violation code": report(violations=[{"code": "not_a_code", "message": "x"}]),
    "a field of the wrong type": report(brushCalls={"circle": "many"}),
    "an extra field": report(verdict="passed"),
    "not JSON": "{passed",
    "not a string": {"dataUrl": None},
    "not a PNG": report(dataUrl="data:image/jpeg;base64,AAAA"),
    "bad base64": report(dataUrl="data:image/png;base64,%%%%"),
    "too many records": report(errors=[{"phase": "draw", "kind": "Error", "message": "x"}] * 1000),
}


@pytest.mark.parametrize("case", MALFORMED)
def test_a_malformed_report_fails_the_sketch_never_unavailable(verdict, case):
    result = verdict(MALFORMED[case])
    assert result.status == "failed"
    assert V.MALFORMED_REPORT in {v.code for v in result.violations}


def _png_header(width: int, height: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + chunk + struct.pack(">I", zlib.crc32(chunk))


def test_a_png_of_another_size_is_refused_before_decoding(verdict):
    # A header claiming 100000 x 100000 pixels: decoding it would take tens of gigabytes.
    bomb = "data:image/png;base64," + base64.b64encode(_png_header(100_000, 100_000) + b"\0" * 64).decode()
    result = verdict(report(dataUrl=bomb))
    assert result.status == "failed"
    assert V.MALFORMED_REPORT in {v.code for v in result.violations}


def test_a_report_larger_than_any_honest_one_is_refused_unread(verdict, settings):
    huge = "x" * (max_report_chars(settings.canvas_size) + 1)
    result = verdict(report(dataUrl=huge))
    assert result.status == "failed"
    assert V.MALFORMED_REPORT in {v.code for v in result.violations}


def test_the_canvas_p5_holds_decides_the_size(verdict):
    result = verdict(report(canvas={"width": 1200, "height": 1200, "webgl": True}))
    assert V.CANVAS_SIZE in {v.code for v in result.violations}
    assert result.png_base64 is None

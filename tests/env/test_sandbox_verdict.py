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


def painted_png(size: int = 600, mode: str = "RGB", paper=(255, 255, 255), paint=(184, 59, 94)) -> bytes:
    image = Image.new(mode, (size, size), paper)
    image.paste(paint, (100, 100, 400, 400))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def data_url(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode()


def report(**overrides) -> str:
    fields = {
        "dataUrl": "data:image/png;base64," + base64.b64encode(painted_png()).decode(),
        "canvas": {"width": 600, "height": 600, "webgl": True},
        "errors": [],
        "violations": [],
        "dropped": {"errors": 0, "violations": 0},
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


# Round three: errors are judged by phase and kind, floods are counted, the sheet is seen on paper.
def error(kind: str, message: str, phase: str = "run") -> dict:
    return {"phase": phase, "kind": kind, "message": message}


@pytest.mark.parametrize(
    ("errors", "code"),
    [
        ([error("RangeError", "any words at all")], V.MEMORY_LIMIT),
        ([error("RangeError", "Maximum BigInt size exceeded", phase="draw")], V.MEMORY_LIMIT),
        ([error("TypeError", "Maximum call stack size exceeded")], None),  # the kind decides, not the words
        ([error("Error", "Invalid string length")], None),
        ([error("TypeError", "petals is undefined", phase="setup")], V.RUNTIME_ERROR),
        ([error("MyOwnError", "x")] * 250 + [error("RangeError", "x")], V.MEMORY_LIMIT),
    ],
)
def test_an_error_is_judged_by_its_kind_and_phase_never_its_message(verdict, errors, code):
    result = verdict(report(errors=errors))
    assert {v.code for v in result.violations} == ({code} if code else set()), result.violations


def test_errors_the_page_counted_but_did_not_keep_are_said(verdict):
    result = verdict(report(errors=[error("TypeError", "x")], dropped={"errors": 199_999, "violations": 7}))
    assert result.status == "passed"
    assert result.errors[-1] == "... and 199999 more errors, counted but not kept"
    assert any("7 more" in warning for warning in result.warnings)


def test_a_transparent_sheet_is_judged_on_white_paper(verdict):
    # Washes at opacity 1/255 on a canvas with no background: invisible to a person, and so to the gate.
    faint = painted_png(mode="RGBA", paper=(0, 0, 0, 0), paint=(184, 59, 94, 1))
    result = verdict(report(dataUrl=data_url(faint)))
    assert V.BLANK_CANVAS in {v.code for v in result.violations}
    with Image.open(io.BytesIO(base64.b64decode(result.png_base64))) as stored:
        assert stored.mode == "RGB" and stored.getpixel((0, 0)) == (255, 255, 255)


def test_a_half_transparent_wash_is_seen_as_it_shows_on_paper(verdict):
    wash = painted_png(mode="RGBA", paper=(0, 0, 0, 0), paint=(184, 59, 94, 128))
    result = verdict(report(dataUrl=data_url(wash)))
    assert result.status == "passed", result.violations
    with Image.open(io.BytesIO(base64.b64decode(result.png_base64))) as stored:
        assert stored.getpixel((0, 0)) == (255, 255, 255)
        assert stored.getpixel((200, 200)) == (219, 157, 174)  # half of the paint over white


def test_an_opaque_sheet_is_stored_byte_for_byte(verdict):
    png = painted_png()
    assert base64.b64decode(verdict(report(dataUrl=data_url(png))).png_base64) == png

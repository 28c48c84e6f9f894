"""The critique a revising painter reads (docs/revisions.md), without a browser: from the pool's own paintings and
drawn sheets. It is deterministic, it says what the pixels and the gate show, and it never names a reference, a
tier, a verdict or a score."""

from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tests.conftest import BUNDLED_POOL
from watercolour_env.critique import critique, measure
from watercolour_shared.render_wire import RenderResult, Violation

# Words about the outcome: a critique that used them would tell the policy its score, or its opponents.
FORBIDDEN = ("reward", "score", "judge", "reference", "tier", "love", "okay", "verdict", "win", "lose", "won", "lost")


def pool_names() -> tuple[set[str], set[str]]:
    """What the bundled pool calls its paintings: whole names (files, sources, subjects, coverage figures) and single
    words (the subjects' words and the tiers)."""
    names, words = set(), set()
    for line in (BUNDLED_POOL / "metadata.jsonl").read_text().splitlines():
        row = json.loads(line)
        names |= {Path(row["file_name"]).stem, Path(row["source"]).stem, row["subject"], f"{row['paint_coverage']:.4f}"}
        words |= {row["tier"], *(word for word in row["subject"].split() if len(word) > 2)}
    return names, words


def assert_speaks_only_of_the_painting(text: str) -> None:
    spoken = set(re.findall(r"[a-z0-9]+", text.lower()))
    names, words = pool_names()
    assert not spoken & set(FORBIDDEN), text
    assert not spoken & words, text
    assert not [name for name in names if name.lower() in text.lower()], text


def sheet(draw) -> str:
    """A 600 x 600 white sheet with `draw(pixels)` painted on it, as a render's base64 PNG."""
    pixels = np.full((600, 600, 3), 255, dtype=np.uint8)
    draw(pixels)
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format="PNG")
    return base64.b64encode(out.getvalue()).decode()


def passed(png_base64: str) -> RenderResult:
    return RenderResult(status="passed", png_base64=png_base64, paint_fraction=0.3)


@pytest.mark.parametrize("image", sorted((BUNDLED_POOL / "images").glob("*.png")), ids=lambda path: path.stem)
def test_a_pool_painting_is_critiqued_without_a_word_of_the_pool(image):
    """The pool's own paintings, critiqued as if the policy had painted them: no name, tier or figure of the pool."""
    text = critique(passed(base64.b64encode(image.read_bytes()).decode()))
    assert text.startswith("The sketch passed the gate.") and "Paint covers" in text and "Palette:" in text
    assert_speaks_only_of_the_painting(text)


def test_the_same_render_gives_the_same_words():
    png = sheet(lambda p: p.__setitem__((slice(0, 300), slice(0, 600)), (40, 90, 200)))
    assert (
        critique(passed(png))
        == critique(passed(png))
        == critique(RenderResult.model_validate_json(passed(png).model_dump_json()))
    )


def test_it_says_where_the_paint_is_how_strong_and_its_colours():
    def top_blue_and_a_dark_red_spot(p):
        p[0:200, :] = (150, 180, 240)  # a pale blue wash across the top third
        p[240:360, 240:360] = (120, 10, 20)  # a dark red glaze in the centre

    text = critique(passed(sheet(top_blue_and_a_dark_red_spot)))
    measured = measure(base64.b64decode(sheet(top_blue_and_a_dark_red_spot)))
    assert measured.coverage == pytest.approx((200 * 600 + 120 * 120) / 600**2, abs=0.01)
    assert "Paint covers 37% of the sheet." in text
    assert "Most of it lies in the top left, the top and the top right." in text
    assert "Left bare: the left, the right, the bottom left, the bottom and the bottom right." in text
    assert "Palette: mostly blue (89%), with red (11%)." in text
    assert "Contrast is high: the darkest tenth of the paint reaches 83%." in text
    assert "Values: 0% light, 89% middle, 11% dark." in text
    assert_speaks_only_of_the_painting(text)


def test_a_flat_wash_is_one_layer_and_a_glazed_one_builds_depth():
    flat = critique(passed(sheet(lambda p: p.__setitem__((slice(100, 500), slice(100, 500)), (200, 220, 120)))))
    assert "a single flat layer" in flat

    def glazed(p):
        p[100:500, 100:500] = (230, 200, 150)
        p[200:400, 200:400] = (180, 120, 60)
        p[230:370, 230:370] = (60, 30, 10)

    assert "the layers build depth" in critique(passed(sheet(glazed)))


def test_a_gate_failure_says_what_failed_and_why():
    result = RenderResult(
        status="failed",
        violations=[Violation(code="offlist_brush_method", message="brush.hatch is not allowed", line=4)],
        errors=["TypeError: x is undefined"],
    )
    text = critique(result)
    assert text == (
        "The sketch did not pass the gate: brush.hatch is not allowed (line 4). It threw: TypeError: x is undefined. "
        "Nothing was painted: the sketch never reached the sheet."
    )
    blank = critique(
        RenderResult(
            status="failed",
            violations=[Violation(code="blank_canvas", message="only 0.10% of the canvas is painted")],
            png_base64=sheet(lambda p: None),
        )
    )
    assert blank.startswith("The sketch did not pass the gate: only 0.10% of the canvas is painted.")
    assert "Paint covers 0% of the sheet." in blank


def test_our_failure_is_said_to_be_ours_and_quotes_nothing():
    text = critique(RenderResult(status="unavailable", unavailable_reason="the judge's provider is down"))
    assert "environment failed, not the sketch" in text and "judge" not in text

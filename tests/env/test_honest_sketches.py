"""Class 8: no false rejections. Every kind of honest sketch the project has passes the whole gate
(static and rendered): the reference pool's sources, the example flower, the demo generator's
output for every subject, and a sketch whose own names look like browser and p5 names."""

from pathlib import Path

import pytest

from tests.conftest import ROOT, SKETCHES, fresh_seed
from watercolour_demo.sketchgen.generate import generate_sketch

HERE = Path(__file__).resolve().parent
PROJECT_SKETCHES = {
    **{f"pool/{path.name}": path for path in sorted(SKETCHES.glob("*.js"))},
    "examples/flower.js": ROOT / "examples" / "flower.js",
    "honest-names.js": HERE / "sketches" / "honest-names.js",
}
GENERATED = {
    "hibiscus": ("a peach hibiscus", {}),
    "leaves": ("green leaves", {}),
    "stems": ("tall stems", {}),
    "flower": ("a wild flower", {}),
    "demo close-up": ("a peach hibiscus", {"composition": "close-up", "paper_wash": False}),
}


@pytest.mark.parametrize("name", PROJECT_SKETCHES)
async def test_a_project_sketch_passes_the_whole_gate(services, name):
    result = await services.pipeline.run(PROJECT_SKETCHES[name].read_text(), seed=fresh_seed())
    assert result.status == "passed", (result.violations, result.errors)
    assert not result.errors


@pytest.mark.parametrize("kind", GENERATED)
async def test_a_generated_sketch_passes_the_whole_gate(services, kind):
    subject, knobs = GENERATED[kind]
    seed = fresh_seed()
    result = await services.pipeline.run(generate_sketch(subject, seed % 1000, **knobs), seed=seed)
    assert result.status == "passed", (result.violations, result.errors)

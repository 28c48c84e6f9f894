"""Class 8: no false rejections. Every kind of honest sketch the project has passes the whole gate
(static and rendered): the reference pool's sources, the example flower, 30 of the demo generator's
sketches, a sketch whose own names look like browser and p5 names, and the ordinary JavaScript
a code model writes (ES5 prototypes, borrowed built-ins, clones through `constructor`, `typeof`
probes of the host, strings that look like URL schemes)."""

from pathlib import Path

import pytest

from tests.conftest import ROOT, SKETCHES, fresh_seed
from watercolour_harness.sketchgen.generate import generate_sketch

HERE = Path(__file__).resolve().parent
PROJECT_SKETCHES = {
    **{f"pool/{path.name}": path for path in sorted(SKETCHES.glob("*.js"))},
    "examples/flower.js": ROOT / "examples" / "flower.js",
    **{path.name: path for path in sorted((HERE / "sketches").glob("honest-*.js"))},
}
# 30 of the demo generator's sketches: six subjects, five seeds each (composition and palette drawn from the seed).
GENERATED_SUBJECTS = ["a peach hibiscus", "green leaves", "tall stems", "a wild flower", "a violet rose", "a fern sprig"]
GENERATED = {f"{subject} #{seed}": (subject, seed) for subject in GENERATED_SUBJECTS for seed in range(5)}


@pytest.mark.parametrize("name", PROJECT_SKETCHES)
async def test_a_project_sketch_passes_the_whole_gate(services, name):
    result = await services.pipeline.run(PROJECT_SKETCHES[name].read_text(), seed=fresh_seed())
    assert result.status == "passed", (result.violations, result.errors)
    assert not result.errors


@pytest.mark.parametrize("name", GENERATED)
async def test_a_generated_sketch_passes_the_whole_gate(services, name):
    subject, seed = GENERATED[name]
    result = await services.pipeline.run(generate_sketch(subject, seed), seed=fresh_seed())
    assert result.status == "passed", (result.violations, result.errors)

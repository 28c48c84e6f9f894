"""What the static gate no longer refuses (reflection members, URL-like strings, `typeof` probes;
docs/sandbox.md, "Static rules") reaches nothing at run time: each attempt passes the static gate
now, goes through the whole pipeline, and puts no paint on the sheet but the brush's own."""

import pytest

from tests.conftest import fresh_seed
from tests.env.test_sandbox_world import cheat

ATTEMPTS = {
    "Function through constructor": "(() => 0).constructor('return this')().ellipse(300, 300, 400);",
    "Function through a colour handle": "color(0).__proto__.constructor.constructor('return this')().ellipse(300, 300, 400);",
    "prototype of a colour handle": "Object.getPrototypeOf(color(0)).constructor.constructor('return this')();",
    "redefine a built-in": "Object.defineProperty(Array.prototype, 'map', { value: () => [] }); brush.circle(300, 300, 250);",
    "prototype write": "const P = Object.getPrototypeOf([]); P.push = () => 0; brush.circle(300, 300, 250);",
    "a world function's prototype": "Object.setPrototypeOf(random, {}); brush.circle(300, 300, 250);",
    "descriptor of a world function": "Object.getOwnPropertyDescriptor(random, 'caller').get.call(random);",
    "typeof probes the recorder": "if (typeof __wcReport === 'object') brush.circle(300, 300, 250);",
    "typeof then a refused name built at run time": "typeof document; [].constructor.constructor('return document')().body;",
    "a data URL as a string": "const u = 'data:text/javascript,globalThis.ellipse(300,300,400)'; brush.circle(u, 300, 250);",
}


@pytest.mark.parametrize("case", ATTEMPTS)
async def test_what_the_static_gate_lets_through_reaches_nothing(services, case):
    sketch = cheat(ATTEMPTS[case])
    assert services.pipeline.gate(sketch)[1] == [], "the static gate lets it through: the world must stop it"
    result = await services.pipeline.run(sketch, seed=fresh_seed())
    assert result.status == "failed", (result.violations, result.errors)
    assert result.paint_fraction is None or result.paint_fraction < 0.005, result.errors

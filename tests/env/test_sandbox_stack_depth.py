"""One verdict per code and seed even for a sketch that catches its own stack overflow and branches
on the depth it reached (docs/sandbox.md, "Determinism").

Frame sizes differ by V8 tier (interpreter, Sparkplug, Maglev, Turbofan), so the depth at which a
recursion overflows depends on when hot functions are compiled. Compiled on background threads, they
arrive when those threads finish: five renders of the first sketch below with seed 5 reached 17525,
17712, 20542, 20542 and 20542 frames, and one of the five verdicts differed. The browser now compiles
on the main thread when V8 asks (`render/chromium.py`, `--no-concurrent-recompilation
--no-concurrent-sparkplug`), so the depth is the same on every render. Each sketch is rendered four
times; both browsers of the test pool take part.
"""

import re

import pytest

from tests.env.test_sandbox_world import SETUP

PAINT_IF_EVEN = "if (d % 2 === 0) { brush.fill('#b83b5e', 200); brush.circle(0, 0, 400); }"
DEPTH = {
    "a bare recursion": "let d = 0; const f = () => { d++; f(); }; try { f(); } catch (e) {}",
    # hot code first, so that functions tier up before and during the recursion
    "a recursion after warm code": (
        "let s = 0, d = 0; const g = (x) => x * 2 + 1; for (let i = 0; i < 3e6; i++) s += g(i) & 3;"
        "const f = (n) => { d++; if (n % 7 === 3) s += g(n); f(n + 1); }; try { f(0); } catch (e) {}"
        "const h = (n) => { d++; return n > 0 ? h(n - 1) + g(n) : 0; }; for (let k = 0; k < 50; k++) h(200);"
        "let e = 0; const q = () => { e++; q(); }; try { q(); } catch (x) {} d += e;"
    ),
}


@pytest.mark.parametrize("case", DEPTH)
async def test_a_sketch_that_branches_on_its_stack_depth_gets_one_verdict(renderer, case):
    sketch = f"{SETUP}function draw() {{ {DEPTH[case]} {PAINT_IF_EVEN} throw new Error('depth ' + d); }}\n"
    results = [await renderer.render(sketch, seed=5) for _ in range(4)]
    depths = [re.search(r"depth (\d+)", " ".join(r.errors)).group(1) for r in results]
    assert len(set(depths)) == 1, depths
    assert len({r.status for r in results}) == 1, [r.status for r in results]

"""One reply through the whole environment: extract -> static gate -> cache -> render.

Static violations end the pipeline before any browser is used; rendered
results are cached by everything that can change them. Identical renders in
flight are drawn once: later requests wait for the first instead of queueing
a copy (a GRPO group often repeats a sketch). Infrastructure failures come
back as `unavailable`; they, and verdicts that depend on how loaded the
machine was (a timeout, the memory watchdog), are never cached.
"""

from __future__ import annotations

import asyncio
import time

from watercolour_env.gate.rules import GateRules
from watercolour_env.gate.static import analyse
from watercolour_env.render.renderer import Renderer
from watercolour_env.reply import extract_sketch
from watercolour_shared.cache_keys import render_key
from watercolour_shared.redis_cache import RedisCache
from watercolour_shared.render_wire import RenderResult, Timings, Violation
from watercolour_shared.violations import ViolationCode as V


class RenderPipeline:
    def __init__(self, renderer: Renderer, cache: RedisCache | None, rules: GateRules, max_code_chars: int):
        self.renderer = renderer
        self.cache = cache
        self.rules = rules
        self.max_code_chars = max_code_chars
        self._in_flight: dict[str, asyncio.Future[RenderResult]] = {}

    def gate(self, reply: str) -> tuple[str | None, list[Violation]]:
        """The static half of the gate: no browser involved. Up to a second of CPU on the largest input."""
        if len(reply) > self.max_code_chars:  # before any other work; the code in a reply is never longer than it
            message = f"the reply has {len(reply)} characters; the limit is {self.max_code_chars}"
            return None, [Violation(code=V.OVERSIZED, message=message)]
        sketch = extract_sketch(reply)
        if sketch.code is None:
            return None, [sketch.violation]
        found = [sketch.violation] if sketch.violation else []
        return sketch.code, found + analyse(sketch.code, self.rules)

    async def run(self, reply: str, seed: int) -> RenderResult:
        started = time.perf_counter()
        code, violations = await asyncio.to_thread(self.gate, reply)  # the event loop keeps answering meanwhile
        gate_ms = (time.perf_counter() - started) * 1000
        if violations:
            return RenderResult(
                status="failed", violations=violations, code=code, timings=Timings(gate_ms=gate_ms, total_ms=gate_ms)
            )
        key = render_key(code, seed, (self.renderer.settings.canvas_size,) * 2, self.rules.digest, self.renderer.version)
        raw = await self.cache.get(key) if self.cache else None
        if raw is not None:
            elapsed_ms = (time.perf_counter() - started) * 1000
            timings = Timings(gate_ms=gate_ms, total_ms=elapsed_ms)
            return RenderResult.model_validate_json(raw).model_copy(update={"code": code, "timings": timings, "cached": True})
        result = await self._render_once(key, code, seed)
        result.code = code
        result.timings.gate_ms = gate_ms
        return result

    async def _render_once(self, key: str, code: str, seed: int) -> RenderResult:
        """Each caller gets its own copy; the render goes on if the caller that started it goes away."""
        drawing = self._in_flight.get(key)
        if drawing is None:
            drawing = asyncio.ensure_future(self._render_and_cache(key, code, seed))
            self._in_flight[key] = drawing
            drawing.add_done_callback(lambda _: self._in_flight.pop(key, None))
        return (await asyncio.shield(drawing)).model_copy(deep=True)

    async def _render_and_cache(self, key: str, code: str, seed: int) -> RenderResult:
        result = await self.renderer.render(code, seed)
        if self.cache and _deterministic(result):
            await self.cache.put(key, result.model_dump_json())
        return result


_LOAD_DEPENDENT = {V.RENDER_TIMEOUT, V.MEMORY_LIMIT}


def _deterministic(result: RenderResult) -> bool:
    return result.status != "unavailable" and not any(v.code in _LOAD_DEPENDENT for v in result.violations)

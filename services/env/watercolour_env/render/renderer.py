"""Turns a browser's page run into a RenderResult: the run-time half of the gate."""

from __future__ import annotations

import base64
import time

from watercolour_env.gate.rules import GateRules
from watercolour_env.render.page_files import library_files, library_versions
from watercolour_env.render.page_run import PageJob, PageRun
from watercolour_env.render.pool import BrowserPool, PoolUnavailable
from watercolour_env.settings import EnvSettings
from watercolour_shared.paint import BLANK_BELOW, paint_fraction
from watercolour_shared.render_wire import RenderResult, Timings, Violation
from watercolour_shared.violations import ViolationCode as V

_PNG_PREFIX = "data:image/png;base64,"


class Renderer:
    def __init__(self, settings: EnvSettings, rules: GateRules):
        self.settings = settings
        self.rules = rules
        self.pool = BrowserPool(settings)
        size = settings.canvas_size
        self._config = {
            "width": size,
            "height": size,
            "allowlist": sorted(rules.allowed_methods),
            "painting": sorted(rules.painting_methods),
        }

    @property
    def version(self) -> str:
        """Libraries, sandbox files, browser and GL path; part of every render cache key."""
        browser = f"chromium@{self.pool.browser_version}+gl@{self.settings.chromium_gl}"
        return f"{library_versions(self.settings.assets_dir)}+{browser}"

    async def start(self) -> None:
        library_files(self.settings.assets_dir)  # fail at start-up, not on the first request
        await self.pool.start()

    async def close(self) -> None:
        await self.pool.close()

    async def render(self, code: str, seed: int) -> RenderResult:
        job = PageJob(
            code=code,
            seed=seed,
            config=self._config,
            assets_dir=self.settings.assets_dir,
            deadline_s=self.settings.render_deadline_s,
            memory_limit_mb=self.settings.memory_limit_mb,
        )
        started = time.perf_counter()
        try:
            run, queue_ms = await self.pool.render(job)
        except PoolUnavailable as error:
            return RenderResult(status="unavailable", unavailable_reason=str(error))
        timings = Timings(queue_ms=queue_ms, total_ms=(time.perf_counter() - started) * 1000 - queue_ms)
        if run.infrastructure_error:
            return RenderResult(status="unavailable", unavailable_reason=run.infrastructure_error, timings=timings)
        return self._judge(run, timings)

    def _judge(self, run: PageRun, timings: Timings) -> RenderResult:
        violations: list[Violation] = []
        if run.timed_out:
            deadline = f"{self.settings.render_deadline_s:g} s"
            violations.append(Violation(code=V.RENDER_TIMEOUT, message=f"the sketch did not finish within {deadline}"))
        if run.memory_exceeded or run.crashed:
            violations.append(Violation(code=V.MEMORY_LIMIT, message="the sketch exhausted its memory and its page was killed"))
        if run.navigated_away:
            violations.append(Violation(code=V.DOM_ACCESS, message="the sketch tried to navigate the page away"))
        for url in run.blocked_urls:
            violations.append(Violation(code=V.EXTERNAL_ACCESS, message=f"the sketch requested {url}"))
        if run.report is None:
            return RenderResult(status="failed", violations=violations, errors=run.page_errors, timings=timings)

        report = run.report
        violations += [Violation(code=V(item["code"]), message=item["message"]) for item in report["violations"]]
        errors = _error_lines(report["errors"], run.page_errors)
        png = _decode_png(report.get("dataUrl"))
        fraction = paint_fraction(png) if png else None
        marks = report["marks"]
        timings.load_ms = marks.get("setupStart", 0.0)
        timings.draw_ms = max(0.0, marks.get("drawEnd", 0.0) - marks.get("setupStart", 0.0))
        timings.readback_ms = marks.get("readback", 0.0)

        painted = fraction is not None and fraction >= BLANK_BELOW
        violations += self._error_violations(report["errors"], errors, painted)
        if not set(report["brushCalls"]) & self.rules.painting_methods:
            violations.append(Violation(code=V.NO_PAINTING_CALL, message="no painting call ran"))
        if png is None:
            violations.append(Violation(code=V.RUNTIME_ERROR, message="the sketch produced no canvas"))
        elif not painted:
            violations.append(Violation(code=V.BLANK_CANVAS, message=f"only {fraction:.2%} of the canvas is painted"))
        return RenderResult(
            status="failed" if violations else "passed",
            violations=_unique(violations),
            errors=errors,
            paint_fraction=fraction,
            brush_calls=report["brushCalls"],
            timings=timings,
            png_base64=base64.b64encode(png).decode() if png else None,
        )

    @staticmethod
    def _error_violations(page_errors: list[dict], lines: list[str], painted: bool) -> list[Violation]:
        """Strict, except that a sketch that throws in draw after painting is scored on what it painted."""
        found = []
        for error in page_errors:
            if error["kind"] == "SyntaxError" and error["phase"] == "load":
                found.append(Violation(code=V.SYNTAX_ERROR, message=error["message"]))
            elif error["phase"] in ("load", "setup", "presetup", "postsetup"):
                found.append(Violation(code=V.RUNTIME_ERROR, message=f"{error['phase']}: {error['message']}"))
        if lines and not found and not painted:
            found.append(Violation(code=V.RUNTIME_ERROR, message=lines[0]))
        return found


def _error_lines(reported: list[dict], page_errors: list[str]) -> list[str]:
    lines = [f"{e['phase']}: {e['kind']}: {e['message']}" for e in reported]
    lines += [message for message in page_errors if not any(message in line for line in lines)]
    return lines


def _decode_png(data_url: str | None) -> bytes | None:
    if not data_url or not data_url.startswith(_PNG_PREFIX):
        return None
    return base64.b64decode(data_url[len(_PNG_PREFIX) :])


def _unique(violations: list[Violation]) -> list[Violation]:
    seen: dict[tuple[str, str], Violation] = {}
    for violation in violations:
        seen.setdefault((violation.code.value, violation.message), violation)
    return list(seen.values())

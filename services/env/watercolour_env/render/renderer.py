"""Turns a browser's page run into a RenderResult: the run-time half of the gate."""

from __future__ import annotations

import base64
import hashlib
import time

from watercolour_env.gate.rules import GateRules
from watercolour_env.render.browser_pool import BrowserPool, BrowsersUnavailable
from watercolour_env.render.chromium import CHROMIUM_FLAGS
from watercolour_env.render.late_errors import late_error_violations
from watercolour_env.render.page_files import library_files, library_versions
from watercolour_env.render.page_report import MalformedReport, PageReport, ReportedError, decode_png, parse_report
from watercolour_env.render.page_run import PageJob, PageRun
from watercolour_env.settings import EnvSettings
from watercolour_shared.paint import BLANK_BELOW, on_paper, paint_fraction
from watercolour_shared.render_wire import RenderResult, Timings, Violation
from watercolour_shared.violations import ViolationCode as V

SLOW_SHARE = 0.5  # of the render deadline: a sketch that takes more is reported as slow


class Renderer:
    def __init__(self, settings: EnvSettings, rules: GateRules):
        self.settings = settings
        self.rules = rules
        self.browsers = BrowserPool(settings)
        size = settings.canvas_size
        self._config = {
            "width": size,
            "height": size,
            "allowlist": sorted(rules.allowed_methods),
            "painting": sorted(rules.painting_methods),
            "world": rules.world,
            "refusedNames": {**rules.calls, **rules.identifiers},
        }

    @property
    def version(self) -> str:
        """Libraries, sandbox files, browser, its flags and GL path; part of every render cache key."""
        # The back end that really draws: GPU, llvmpipe and SwiftShader blend differently, and GPUs (and llvmpipe
        # on another LLVM or SIMD width, both in its string) may differ among themselves, so a render made by one
        # never answers for another (docs/rendering.md).
        webgl = self.browsers.webgl
        named = webgl is not None and (webgl.on_gpu or webgl.mode == "llvmpipe")
        gl = "not started" if webgl is None else f"{webgl.mode}({webgl.renderer})" if named else webgl.mode
        browser = f"chromium@{self.browsers.browser_version}+gl@{gl}"
        # The browser's flags too: V8's flags decide, for one, the depth at which a recursion overflows.
        browser += f"+flags@{hashlib.sha256(' '.join(CHROMIUM_FLAGS).encode()).hexdigest()[:12]}"
        return f"{library_versions(self.settings.assets_dir)}+{browser}"

    async def start(self) -> None:
        library_files(self.settings.assets_dir)  # fail at start-up, not on the first request
        await self.browsers.start()

    async def close(self) -> None:
        await self.browsers.close()

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
            run, queue_ms = await self.browsers.render(job)
        except BrowsersUnavailable as error:
            return RenderResult(status="unavailable", unavailable_reason=str(error))
        timings = Timings(queue_ms=queue_ms, total_ms=(time.perf_counter() - started) * 1000 - queue_ms)
        if run.infrastructure_error:
            return RenderResult(status="unavailable", unavailable_reason=run.infrastructure_error, timings=timings)
        return self._verdict(run, timings)

    def _verdict(self, run: PageRun, timings: Timings) -> RenderResult:
        """The run-time half of the gate, from what the browser and the driver saw."""
        violations = self._driver_violations(run)
        driver_lines = _lines(run.page_errors, run.errors_dropped)
        if run.report is None:
            return RenderResult(status="failed", violations=violations, errors=driver_lines, timings=timings)
        try:
            report = parse_report(run.report, self.settings.canvas_size)
            png = self._picture(report)
        except MalformedReport as error:
            violations.append(Violation(code=V.MALFORMED_REPORT, message=str(error)))
            return RenderResult(status="failed", violations=violations, errors=driver_lines, timings=timings)

        violations += [_reported(item) for item in report.violations] + self._canvas_violations(report)
        seen = {(e.kind, e.message) for e in report.errors}
        reported_errors = [*report.errors, *(e for e in run.page_errors if (e.kind, e.message) not in seen)]
        errors = _lines(reported_errors, report.dropped.errors + run.errors_dropped)
        fraction = paint_fraction(png) if png else None
        timings.load_ms = report.marks.get("setupStart", 0.0)
        timings.draw_ms = max(0.0, report.marks.get("drawEnd", 0.0) - report.marks.get("setupStart", 0.0))
        timings.readback_ms = report.marks.get("readback", 0.0)

        painted = fraction is not None and fraction >= BLANK_BELOW
        violations += late_error_violations(reported_errors, errors, painted)
        if not set(report.brushCalls) & self.rules.painting_methods:
            violations.append(Violation(code=V.NO_PAINTING_CALL, message="no painting call ran"))
        if png is None:
            violations.append(Violation(code=V.RUNTIME_ERROR, message="the sketch produced no canvas"))
        elif not painted:
            violations.append(Violation(code=V.BLANK_CANVAS, message=f"only {fraction:.2%} of the canvas is painted"))
        return RenderResult(
            status="failed" if violations else "passed",
            violations=_unique(violations),
            warnings=self._slow_warning(timings) + _dropped_warning(report),
            errors=errors,
            paint_fraction=fraction,
            brush_calls=report.brushCalls,
            timings=timings,
            png_base64=base64.b64encode(png).decode() if png else None,
        )

    def _driver_violations(self, run: PageRun) -> list[Violation]:
        """What the driver itself saw: V8's syntax verdict, the deadline, the watchdog, every blocked request."""
        violations: list[Violation] = []
        if run.syntax_error is not None:
            violations.append(Violation(code=V.SYNTAX_ERROR, message=run.syntax_error))
        if run.timed_out:
            deadline = f"{self.settings.render_deadline_s:g} s"
            violations.append(Violation(code=V.RENDER_TIMEOUT, message=f"the sketch did not finish within {deadline}"))
        if run.memory_exceeded or run.crashed:
            violations.append(Violation(code=V.MEMORY_LIMIT, message="the sketch exhausted its memory and its page was killed"))
        if run.navigated_away:
            violations.append(Violation(code=V.DOM_ACCESS, message="the sketch tried to navigate the page away"))
        for url in run.blocked_urls:
            violations.append(Violation(code=V.EXTERNAL_ACCESS, message=f"the sketch requested {url}"))
        if run.requests_dropped:
            message = f"... and {run.requests_dropped} more requests, counted but not kept"
            violations.append(Violation(code=V.EXTERNAL_ACCESS, message=message))
        return violations

    def _slow_warning(self, timings: Timings) -> list[str]:
        """A sketch past half its deadline is reported; it keeps its reward (docs/sandbox.md: the render budget)."""
        deadline_ms = self.settings.render_deadline_s * 1000
        spent_ms = timings.load_ms + timings.draw_ms + timings.readback_ms
        if spent_ms <= deadline_ms * SLOW_SHARE:
            return []
        return [f"slow: the sketch took {spent_ms / 1000:.1f} s of its {deadline_ms / 1000:g} s deadline"]

    def _canvas_ok(self, report: PageReport) -> bool:
        canvas, size = report.canvas, self.settings.canvas_size
        return canvas is not None and canvas.webgl and (canvas.width, canvas.height) == (size, size)

    def _canvas_violations(self, report: PageReport) -> list[Violation]:
        """Checked here too, from the canvas p5 holds, whatever the page itself reported."""
        if report.canvas is None or self._canvas_ok(report):
            return []
        if not report.canvas.webgl:
            return [Violation(code=V.CANVAS_NOT_WEBGL, message="the canvas is not a WEBGL canvas")]
        size = self.settings.canvas_size
        message = f"the canvas is {report.canvas.width}x{report.canvas.height} pixels; it must be {size}x{size} (pixel density 1)"
        return [Violation(code=V.CANVAS_SIZE, message=message)]

    def _picture(self, report: PageReport) -> bytes | None:
        """The sheet on white paper, decoded only when the canvas p5 holds is the size we score."""
        if not self._canvas_ok(report):
            return None
        png = decode_png(report.dataUrl, self.settings.canvas_size)
        return on_paper(png) if png else None


def _reported(item) -> Violation:
    try:
        code = V(item.code)
    except ValueError:
        return Violation(code=V.MALFORMED_REPORT, message=f"the page reported an unknown violation {item.code!r}")
    return Violation(code=code, message=item.message)


def _lines(errors: list[ReportedError], dropped: int) -> list[str]:
    lines = [f"{e.phase}: {e.kind}: {e.message}" for e in errors]
    return lines + [f"... and {dropped} more errors, counted but not kept"] if dropped else lines


def _dropped_warning(report: PageReport) -> list[str]:
    dropped = report.dropped.violations
    return [f"the page kept the first violations and counted {dropped} more"] if dropped else []


def _unique(violations: list[Violation]) -> list[Violation]:
    seen: dict[tuple[str, str], Violation] = {}
    for violation in violations:
        seen.setdefault((violation.code.value, violation.message), violation)
    return list(seen.values())

"""Runs one sketch on a fresh page of one browser, under a deadline and a memory watchdog."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from pathlib import Path

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Route

from watercolour_env.render.chromium import Chromium
from watercolour_env.render.page_files import (
    CONTENT_SECURITY_POLICY,
    ORIGIN,
    PAGE_URL,
    PageFile,
    library_files,
    sketch_files,
)
from watercolour_env.render.page_report import ReportedError
from watercolour_shared.sketch_text import safe_text

WATCHDOG_INTERVAL_S = 0.2
PAGE_TIME_ZONE = "UTC"
PAGE_LOCALE = "en-US"
# What the driver keeps of what it saw itself; the page marks its own errors handled, so Chromium sends
# few here, but nothing a sketch does may make this list grow without bound.
DRIVER_RECORDS = 20


@dataclass
class PageRun:
    """What the page reported, or why it could not report."""

    report: str | None = None  # the page's JSON report, parsed and checked by the renderer
    page_errors: list[ReportedError] = field(default_factory=list)  # errors Chromium sent the driver (phase "run")
    blocked_urls: list[str] = field(default_factory=list)
    errors_dropped: int = 0  # past DRIVER_RECORDS, counted only
    requests_dropped: int = 0
    navigated_away: bool = False
    syntax_error: str | None = None  # V8's own verdict on the code, before the page loads
    timed_out: bool = False
    memory_exceeded: bool = False
    crashed: bool = False
    infrastructure_error: str | None = None

    def page_error(self, error: PlaywrightError) -> None:
        if len(self.page_errors) < DRIVER_RECORDS:
            self.page_errors.append(_driver_error(error))
        else:
            self.errors_dropped += 1

    def blocked(self, url: str) -> None:
        if len(self.blocked_urls) < DRIVER_RECORDS:
            self.blocked_urls.append(url[:200])
        else:
            self.requests_dropped += 1

    @property
    def browser_is_suspect(self) -> bool:
        """After any of these the browser is replaced before the next render."""
        return self.timed_out or self.memory_exceeded or self.crashed or self.infrastructure_error is not None


@dataclass(frozen=True)
class PageJob:
    code: str
    seed: int
    config: dict
    assets_dir: Path
    deadline_s: float
    memory_limit_mb: int


async def run_page(chromium: Chromium, job: PageJob) -> PageRun:
    run = PageRun()
    files = {**library_files(job.assets_dir), **sketch_files(job.code, {**job.config, "seed": job.seed})}
    try:
        context = await chromium.browser.new_context(
            viewport={"width": job.config["width"], "height": job.config["height"]},
            device_scale_factor=1,
            service_workers="block",
            accept_downloads=False,
            # Seed and code fix a render: dates a sketch makes read the same on every machine (world.js).
            timezone_id=PAGE_TIME_ZONE,
            locale=PAGE_LOCALE,
        )
    except PlaywrightError as error:
        run.infrastructure_error = f"could not open a browser context: {error.message}"
        return run
    watchdog = None
    try:
        page = await context.new_page()
        page.on("pageerror", run.page_error)
        page.on("crash", lambda _page: setattr(run, "crashed", True))
        page.on("dialog", lambda dialog: asyncio.ensure_future(dialog.dismiss()))
        run.syntax_error = await _v8_syntax_error(context, page, job.code)
        if run.syntax_error is not None:
            return run
        await page.route("**/*", lambda route: _answer(route, files, run))
        watchdog = asyncio.create_task(_watch_memory(chromium, job.memory_limit_mb, run))
        run.report = await asyncio.wait_for(_load_and_wait(page), timeout=job.deadline_s)
    except asyncio.TimeoutError:
        run.timed_out = not run.memory_exceeded
    except PlaywrightError as error:
        if not (run.crashed or run.memory_exceeded or run.navigated_away):
            run.infrastructure_error = f"the browser failed during the render: {error.message[:300]}"
    finally:
        if watchdog is not None:
            watchdog.cancel()
        if not run.browser_is_suspect:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(context.close(), timeout=5)
    return run


def _driver_error(error: PlaywrightError) -> ReportedError:
    kind, message = safe_text((error.name or "Error")[:60], 60), safe_text((error.message or "")[:500], 500)
    return ReportedError(phase="run", kind=kind, message=message)


async def _v8_syntax_error(context, page, code: str) -> str | None:
    """Compiles (never runs) the code as a classic script in the browser's own V8, on the blank page."""
    session = await context.new_cdp_session(page)
    try:
        await session.send("Runtime.enable")
        compiled = await session.send(
            "Runtime.compileScript", {"expression": code, "sourceURL": "sketch.js", "persistScript": False}
        )
    finally:
        await session.detach()
    details = compiled.get("exceptionDetails")
    if details is None:
        return None
    exception = details.get("exception", {}).get("description") or details.get("text", "SyntaxError")
    return f"{exception.splitlines()[0][:200]} (line {details.get('lineNumber', 0) + 1})"


# The JSON string prelude.js builds from its own records, once the first frame was read back
# (the page may not have run prelude.js yet when this starts waiting).
_REPORT = """new Promise((resolve) => {
  const wait = () => ("__wcReport" in window ? window.__wcReport.then(resolve) : setTimeout(wait, 20));
  wait();
})"""


async def _load_and_wait(page) -> str:
    await page.goto(PAGE_URL, wait_until="commit")
    return await page.evaluate(_REPORT)


async def _answer(route: Route, files: dict[str, PageFile], run: PageRun) -> None:
    url = route.request.url
    path = url[len(ORIGIN) :].split("?", 1)[0] if url.startswith(ORIGIN + "/") else None
    # Each file is served once, to the page's own script tags: a second request is the sketch's.
    file = files.pop(path, None) if path else None
    if file is None:
        run.blocked(url)
        run.navigated_away = run.navigated_away or route.request.is_navigation_request()
        await route.abort("blockedbyclient")
        return
    headers = {"content-type": file.content_type, "cache-control": "no-store"}
    if path == "/page.html":
        headers["content-security-policy"] = CONTENT_SECURITY_POLICY
    await route.fulfill(status=200, headers=headers, body=file.body)


async def _watch_memory(chromium: Chromium, limit_mb: int, run: PageRun) -> None:
    while True:
        await asyncio.sleep(WATCHDOG_INTERVAL_S)
        if await asyncio.to_thread(chromium.memory_mb) - chromium.idle_mb > limit_mb:
            run.memory_exceeded = True
            await chromium.kill()
            return

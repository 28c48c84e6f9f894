"""A pool of browsers, one render at a time each.

Pages of one browser serialise inside its one GPU process (where WebGL is drawn,
on a CPU too), so parallelism comes from several browsers. A browser is replaced
after `recycle_after` renders and after any render that timed out, crashed or ran
out of memory, so a hostile sketch never slows the next one.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

from playwright.async_api import Browser, Playwright, async_playwright

from watercolour_env.render.chromium import Chromium
from watercolour_env.render.page_run import PageJob, PageRun, run_page
from watercolour_env.render.webgl import WebGLBackend, checked_backend, choose_mode, read_renderer
from watercolour_env.settings import EnvSettings

log = logging.getLogger(__name__)


class BrowsersUnavailable(Exception):
    """The pool could not take the render: an infrastructure condition, not the sketch's fault."""


@dataclass
class _Slot:
    chromium: Chromium
    renders: int = 0


class BrowserPool:
    def __init__(self, settings: EnvSettings):
        self.settings = settings
        self._playwright_cm = None
        self._playwright: Playwright | None = None
        self._idle: asyncio.Queue[_Slot] = asyncio.Queue()
        self._slots: list[_Slot] = []  # every slot, idle or rendering
        self._pending = 0
        self.stats = {"renders": 0, "recycled": 0, "killed": 0}
        self.network_isolated = False
        self.browser_version = "not started"
        self.webgl: WebGLBackend | None = None  # what really draws, read at start
        self._gl_mode = "software"

    async def start(self) -> None:
        self._playwright_cm = async_playwright()
        self._playwright = await self._playwright_cm.start()
        settings = self.settings
        self._gl_mode = await choose_mode(
            self._playwright, settings.chromium_path, settings.chromium_gl, settings.isolate_network
        )
        slots = await asyncio.gather(*(self._new_slot() for _ in range(settings.browsers)))
        for slot in slots:
            self._idle.put_nowait(slot)
        try:
            self.webgl = checked_backend(settings.chromium_gl, self._gl_mode, await read_renderer(slots[0].chromium.browser))
            self.network_isolated = all(slot.chromium.network_isolated for slot in slots)
            self._check_isolation()
        except RuntimeError:
            await self.close()
            raise
        self.browser_version = slots[0].chromium.browser.version
        log.info("browser pool ready: %d browsers; WebGL draws on %r (%s)", len(slots), self.webgl.renderer, self._gl_mode)

    def _check_isolation(self) -> None:
        if self.settings.isolate_network and not self.network_isolated and not self.settings.allow_shared_network:
            raise RuntimeError(
                "Chromium cannot run in an empty network namespace here (unshare --net is refused), so a sketch's "
                "sockets could reach this host's network; set WATERCOLOUR_ALLOW_SHARED_NETWORK=1 to start anyway "
                "(requests stay blocked by routing alone)"
            )

    async def close(self) -> None:
        while not self._idle.empty():
            await self._idle.get_nowait().chromium.close()
        if self._playwright_cm is not None:
            await self._playwright_cm.__aexit__(None, None, None)
            self._playwright_cm = None

    def browsers(self) -> list[Browser]:
        """The running browsers, idle or rendering (diagnostics: bench/webgl_bench.py traces one)."""
        return [slot.chromium.browser for slot in self._slots if slot.chromium.browser is not None]

    @property
    def size(self) -> int:
        return self.settings.browsers

    @property
    def idle(self) -> int:
        return self._idle.qsize()

    @property
    def pending(self) -> int:
        return self._pending

    async def render(self, job: PageJob) -> tuple[PageRun, float]:
        """Returns the page's run and the milliseconds spent waiting for a browser."""
        queued = time.perf_counter()
        slot = await self._take_slot()
        queue_ms = (time.perf_counter() - queued) * 1000
        try:
            if slot.chromium.browser is None or not slot.chromium.browser.is_connected():
                slot = await self._replace(slot, "disconnected")
                if slot.chromium.browser is None:
                    raise BrowsersUnavailable("no browser could be started")
            run = await run_page(slot.chromium, job)
            slot.renders += 1
            self.stats["renders"] += 1
            if run.browser_is_suspect:
                slot = await self._replace(slot, "after a failed render", kill=True)
            elif slot.renders >= self.settings.recycle_after:
                slot = await self._replace(slot, "recycled")
            return run, queue_ms
        finally:
            self._idle.put_nowait(slot)

    async def _take_slot(self) -> _Slot:
        if not self._idle.empty():
            return self._idle.get_nowait()
        if self._pending >= self.settings.max_pending:
            raise BrowsersUnavailable(f"render queue is full ({self._pending} waiting)")
        self._pending += 1
        try:
            return await asyncio.wait_for(self._idle.get(), timeout=self.settings.queue_timeout_s)
        except asyncio.TimeoutError:
            raise BrowsersUnavailable(f"no browser free within {self.settings.queue_timeout_s:.0f} s") from None
        finally:
            self._pending -= 1

    def _chromium(self) -> Chromium:
        settings = self.settings
        return Chromium(self._playwright, settings.chromium_path, settings.isolate_network, self._gl_mode)

    async def _new_slot(self) -> _Slot:
        chromium = self._chromium()
        await chromium.launch()
        return self._add_slot(chromium)

    def _add_slot(self, chromium: Chromium) -> _Slot:
        slot = _Slot(chromium)
        self._slots.append(slot)
        return slot

    async def _replace(self, slot: _Slot, why: str, kill: bool = False) -> _Slot:
        log.info("replacing a browser (%s)", why)
        self._slots.remove(slot)
        self.stats["killed" if kill else "recycled"] += 1
        if kill:
            await slot.chromium.kill()
        else:
            await slot.chromium.close()
        try:
            return await self._new_slot()
        except Exception:
            log.exception("could not start a replacement browser; will retry on next use")
            return self._add_slot(self._chromium())

"""One headless Debian Chromium, launched through Playwright, that can be killed whole.

Playwright does not expose the browser's process id, so each launch carries a
unique marker switch; the process tree found by it is what the memory watchdog
measures and what `kill` ends when a sketch hangs the browser.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from pathlib import Path

import psutil
from playwright.async_api import Browser, Playwright

log = logging.getLogger(__name__)

# Software WebGL through headless Chromium's default path. The recipe's
# --use-angle=swiftshader set was 10-15x slower here (see bench/).
CHROMIUM_FLAGS = (
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-sync",
    "--disable-quic",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--mute-audio",
    "--js-flags=--max-old-space-size=512",
)


class Chromium:
    def __init__(self, playwright: Playwright, executable: Path):
        self._playwright = playwright
        self._executable = executable
        self.marker = f"--watercolour-browser={uuid.uuid4().hex}"
        self.browser: Browser | None = None
        self._root: psutil.Process | None = None

    async def launch(self) -> None:
        self.browser = await self._playwright.chromium.launch(
            executable_path=str(self._executable),
            headless=True,
            args=[*CHROMIUM_FLAGS, self.marker],
        )
        self._root = await asyncio.to_thread(self._find_root)

    def _find_root(self) -> psutil.Process | None:
        for process in psutil.process_iter(["cmdline"]):
            with contextlib.suppress(psutil.Error, TypeError):
                if self.marker in (process.info["cmdline"] or []):
                    return process
        log.warning("chromium process with %s not found; memory watchdog disabled for it", self.marker)
        return None

    def memory_mb(self) -> float:
        """Resident memory of the browser and every child process."""
        if self._root is None:
            return 0.0
        total = 0
        with contextlib.suppress(psutil.Error):
            for process in [self._root, *self._root.children(recursive=True)]:
                with contextlib.suppress(psutil.Error):
                    total += process.memory_info().rss
        return total / 2**20

    async def kill(self) -> None:
        """End the whole process tree at once; a hung page cannot delay this."""
        if self._root is not None:
            with contextlib.suppress(psutil.Error):
                for process in [*self._root.children(recursive=True), self._root]:
                    with contextlib.suppress(psutil.Error):
                        process.kill()
        if self.browser is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.browser.close(), timeout=5)
        self.browser = None
        self._root = None

    async def close(self) -> None:
        if self.browser is not None:
            try:
                await asyncio.wait_for(self.browser.close(), timeout=10)
            except Exception:  # noqa: BLE001 - a browser that will not close is killed
                await self.kill()
        self.browser = None

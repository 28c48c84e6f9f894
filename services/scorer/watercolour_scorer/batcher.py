"""Gathers concurrent score requests into micro-batches for the model.

Every request's images join one queue; a worker takes up to `max_batch` of
them, waiting at most `max_wait_s` for the batch to fill, and runs one forward
pass on a single worker thread (the device is used by one pass at a time).
When a pass raises, its images are retried one by one, so only the image that
breaks the model fails its request; the others are answered.
"""

from __future__ import annotations

import asyncio
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from PIL import Image

from watercolour_scorer.backends import ScoringBackend

log = logging.getLogger(__name__)


class BackendFailed(Exception):
    """The model raised on this image even on its own."""


@dataclass
class _Item:
    image: Image.Image
    prompt: str
    result: asyncio.Future


class MicroBatcher:
    def __init__(self, backend: ScoringBackend, max_batch: int, max_wait_s: float):
        self.backend = backend
        self.max_batch = max_batch
        self.max_wait_s = max_wait_s
        self._queue: asyncio.Queue[_Item] = asyncio.Queue()
        self._device = ThreadPoolExecutor(max_workers=1, thread_name_prefix="scorer-device")
        self._worker: asyncio.Task | None = None
        self.stats = {"passes": 0, "images": 0, "largest_pass": 0, "failed_passes": 0}

    def start(self) -> None:
        self._worker = asyncio.create_task(self._run())

    async def close(self) -> None:
        if self._worker:
            self._worker.cancel()
        self._device.shutdown(wait=False, cancel_futures=True)

    async def score(self, images: list[Image.Image], prompt: str) -> list[tuple[float, float]]:
        loop = asyncio.get_running_loop()
        items = [_Item(image, prompt, loop.create_future()) for image in images]
        for item in items:
            self._queue.put_nowait(item)
        return list(await asyncio.gather(*(item.result for item in items)))

    async def _run(self) -> None:
        while True:
            batch = [await self._queue.get()]
            deadline = time.monotonic() + self.max_wait_s
            while len(batch) < self.max_batch:
                remaining = deadline - time.monotonic()
                if remaining <= 0 and self._queue.empty():
                    break
                try:
                    batch.append(await asyncio.wait_for(self._queue.get(), timeout=max(remaining, 0)))
                except asyncio.TimeoutError:
                    break
            await self._score(batch)

    async def _score(self, batch: list[_Item]) -> None:
        live = [item for item in batch if not item.result.done()]  # a cancelled request's images are skipped
        if not live:
            return
        try:
            scores = await self._forward(live)
        except Exception:  # noqa: BLE001 - isolate the image that breaks the model
            self.stats["failed_passes"] += 1
            log.exception("a forward pass of %d images failed; retrying them one by one", len(live))
            for item in live:
                try:
                    [score] = await self._forward([item])
                except Exception as error:  # noqa: BLE001
                    if not item.result.done():
                        item.result.set_exception(BackendFailed(str(error)))
                else:
                    if not item.result.done():
                        item.result.set_result(score)
            return
        for item, score in zip(live, scores, strict=True):
            if not item.result.done():
                item.result.set_result(score)

    async def _forward(self, items: list[_Item]) -> list[tuple[float, float]]:
        images, prompts = [i.image for i in items], [i.prompt for i in items]
        loop = asyncio.get_running_loop()
        scores = await loop.run_in_executor(self._device, self.backend.score_batch, images, prompts)
        self.stats["passes"] += 1
        self.stats["images"] += len(items)
        self.stats["largest_pass"] = max(self.stats["largest_pass"], len(items))
        return scores

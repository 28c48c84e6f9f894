"""Micro-batching with the real heuristic backend, and isolation of an image that breaks the model."""

import asyncio
import io

import pytest
from PIL import Image

from tests.pictures import soft_wash
from watercolour_scorer.backends.heuristic import HeuristicBackend
from watercolour_scorer.batcher import BackendFailed, MicroBatcher


def image(seed: int) -> Image.Image:
    return Image.open(io.BytesIO(soft_wash(seed))).convert("RGB")


class BreaksOnTinyImages(HeuristicBackend):
    """The heuristic model, made to raise on a 1x1 image the way a real model raises mid-batch."""

    def score_batch(self, images, prompts):
        if any(i.size == (1, 1) for i in images):
            raise RuntimeError("shape mismatch in the vision tower")
        return super().score_batch(images, prompts)


async def test_concurrent_requests_share_forward_passes():
    batcher = MicroBatcher(HeuristicBackend(), max_batch=16, max_wait_s=0.05)
    batcher.start()
    try:
        results = await asyncio.gather(*(batcher.score([image(seed)], "a flower") for seed in range(12)))
    finally:
        await batcher.close()
    assert len(results) == 12 and all(len(r) == 1 for r in results)
    assert batcher.stats["images"] == 12
    assert batcher.stats["passes"] < 12
    assert batcher.stats["largest_pass"] > 1


async def test_max_batch_caps_a_forward_pass():
    batcher = MicroBatcher(HeuristicBackend(), max_batch=4, max_wait_s=0.05)
    batcher.start()
    try:
        await batcher.score([image(seed) for seed in range(10)], "a flower")
    finally:
        await batcher.close()
    assert batcher.stats["largest_pass"] == 4
    assert batcher.stats["passes"] == 3


async def test_an_image_that_breaks_the_model_fails_only_its_own_request():
    batcher = MicroBatcher(BreaksOnTinyImages(), max_batch=16, max_wait_s=0.05)
    batcher.start()
    poison = Image.new("RGB", (1, 1))
    try:
        good, bad, also_good = await asyncio.gather(
            batcher.score([image(1)], "a flower"),
            batcher.score([poison], "a flower"),
            batcher.score([image(2)], "a flower"),
            return_exceptions=True,
        )
    finally:
        await batcher.close()
    assert isinstance(bad, BackendFailed)
    assert len(good) == 1 and len(also_good) == 1
    assert batcher.stats["failed_passes"] == 1


async def test_the_batcher_keeps_serving_after_a_failure():
    batcher = MicroBatcher(BreaksOnTinyImages(), max_batch=8, max_wait_s=0.01)
    batcher.start()
    try:
        with pytest.raises(BackendFailed):
            await batcher.score([Image.new("RGB", (1, 1))], "a flower")
        assert len(await batcher.score([image(3)], "a flower")) == 1
    finally:
        await batcher.close()

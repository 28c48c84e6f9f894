"""Scoring backends: each turns a batch of images and prompts into (mu, sigma) pairs."""

from __future__ import annotations

from typing import Protocol

from PIL import Image

from watercolour_scorer.settings import ScorerSettings


class ScoringBackend(Protocol):
    name: str  # hpsv3 | heuristic: shown in every answer
    model: str
    version: str  # part of every score cache key

    def load(self) -> None:
        """Heavy start-up work (weights onto the device); called once, off the event loop."""

    def score_batch(self, images: list[Image.Image], prompts: list[str]) -> list[tuple[float, float]]:
        """One forward pass; called from one worker thread at a time."""


def build_backend(settings: ScorerSettings) -> ScoringBackend:
    if settings.backend == "heuristic":
        from watercolour_scorer.backends.heuristic import HeuristicBackend

        return HeuristicBackend()
    from watercolour_scorer.backends.hpsv3_model import Hpsv3Backend

    return Hpsv3Backend(settings)

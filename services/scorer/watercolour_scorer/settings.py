"""Every setting of the scoring service, read from the environment in one place."""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class ScorerSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="WATERCOLOUR_SCORER_", extra="ignore", populate_by_name=True)

    backend: Literal["hpsv3", "heuristic"] = Field("hpsv3", description="heuristic is a CPU stand-in, never HPSv3")
    hpsv3_config: Path | None = Field(None, description="model config YAML; default: the package's HPSv3_7B.yaml")
    hpsv3_checkpoint: Path | None = Field(None, description="weights; default: MizzenAI/HPSv3 from the Hub cache")
    device: str = Field("cuda", description="cuda, cuda:1, or cpu")
    max_batch: int = Field(32, ge=1, le=256, description="images in one forward pass")
    max_wait_ms: float = Field(20.0, ge=0, description="how long a forward pass waits to fill up")
    temperature: float = Field(4.0, gt=0, description="score = 1 / (1 + exp(-mu / temperature))")
    token: str | None = Field(None, description="when set, /score needs `Authorization: Bearer <token>`")
    max_image_side: int = Field(4096, ge=64)
    max_body_mb: float = Field(64.0, gt=0)
    redis_url: str = Field("redis://127.0.0.1:6379/0", alias="REDIS_URL")
    cache_ttl_s: int = Field(30 * 24 * 3600, ge=0)
    host: str = "127.0.0.1"  # loopback unless asked; the image asks for 0.0.0.0
    port: int = 8001

    @property
    def normalisation(self) -> str:
        return f"1/(1+exp(-mu/{self.temperature:g}))"

    def normalise(self, mu: float) -> float:
        return 1.0 / (1.0 + math.exp(-mu / self.temperature))


@cache
def get_settings() -> ScorerSettings:
    return ScorerSettings()

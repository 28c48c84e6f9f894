"""What crosses HTTP to and from the scoring service."""

from __future__ import annotations

from pydantic import BaseModel, Field

DEFAULT_PROMPT = "a loose watercolour flower"
MAX_IMAGES_PER_REQUEST = 64
MAX_PROMPT_CHARS = 2000


class ScoreRequest(BaseModel):
    images: list[str] = Field(min_length=1, max_length=MAX_IMAGES_PER_REQUEST, description="PNG images, base64")
    prompt: str = Field(DEFAULT_PROMPT, min_length=1, max_length=MAX_PROMPT_CHARS)


class ImageScore(BaseModel):
    mu: float
    sigma: float
    score: float = Field(description="mu normalised into 0..1, by `normalisation`")
    cached: bool = False


class ScoreResponse(BaseModel):
    scores: list[ImageScore]
    prompt: str
    backend: str = Field(description="hpsv3, or heuristic (never HPSv3: an image-statistics stand-in)")
    model: str
    model_version: str
    normalisation: str

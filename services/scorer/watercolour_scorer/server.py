"""The scoring service's HTTP server.

POST /score   PNG images (JSON base64, or multipart `images` files) and a prompt
GET  /health  the process is up (and what it is doing)
GET  /ready   200 once the model is loaded, 503 before or when loading failed

`app` is built when the server starts, not at import: building picks the backend from the settings.
"""

from __future__ import annotations

import json

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse
from pydantic import ValidationError

from watercolour_scorer.batcher import BackendFailed
from watercolour_scorer.images import BadImage, from_base64
from watercolour_scorer.service import NotReady, ScoringService
from watercolour_scorer.settings import ScorerSettings, get_settings
from watercolour_shared.score_wire import DEFAULT_PROMPT, MAX_IMAGES_PER_REQUEST, ScoreRequest, ScoreResponse
from watercolour_shared.serving import BuiltAtStartup, serve, service_app


def build_app(settings: ScorerSettings | None = None) -> FastAPI:
    settings = settings or get_settings()
    service = ScoringService(settings)

    app = service_app("watercolour-scorer", service)
    app.state.service = service

    @app.middleware("http")
    async def refuse_huge_bodies(request: Request, call_next):
        length = request.headers.get("content-length")
        if length and length.isdigit() and int(length) > settings.max_body_mb * 2**20:
            return JSONResponse({"detail": f"the body is over {settings.max_body_mb:g} MB"}, status_code=413)
        return await call_next(request)

    def authorised(request: Request) -> None:
        if settings.token and request.headers.get("authorization") != f"Bearer {settings.token}":
            raise HTTPException(401, "a bearer token is required", headers={"WWW-Authenticate": "Bearer"})

    @app.get("/health")
    async def health() -> dict:
        return {
            "status": "healthy",
            "backend": service.backend.name,
            "model": service.backend.model,
            "ready": service.ready,
            "load_error": service.load_error,
            "batching": service.batcher.stats,
            "cache": service.cache.stats,
        }

    @app.get("/ready")
    async def ready() -> JSONResponse:
        if service.ready:
            return JSONResponse({"ready": True, "model_version": service.backend.version})
        return JSONResponse({"ready": False, "detail": service.load_error or "loading"}, status_code=503)

    @app.post("/score", response_model=ScoreResponse, dependencies=[Depends(authorised)])
    async def score(request: Request) -> ScoreResponse:
        pngs, prompt = await _read_images(request)
        try:
            return await service.score(pngs, prompt)
        except BadImage as error:
            raise HTTPException(error.status, str(error)) from None
        except NotReady as error:
            raise HTTPException(503, str(error), headers={"Retry-After": "30"}) from None
        except BackendFailed as error:
            raise HTTPException(503, f"the model failed on this request: {error}") from None

    return app


async def _read_images(request: Request) -> tuple[list[bytes], str]:
    if request.headers.get("content-type", "").startswith("multipart/form-data"):
        form = await request.form(max_files=MAX_IMAGES_PER_REQUEST + 1)
        pngs = [await upload.read() for upload in form.getlist("images") if hasattr(upload, "read")]
        prompt = str(form.get("prompt") or DEFAULT_PROMPT)
        _validated(lambda: ScoreRequest(images=["-"] * len(pngs), prompt=prompt))  # counts and prompt
        return pngs, prompt
    raw = await request.body()
    body = _validated(lambda: ScoreRequest.model_validate_json(raw))
    try:
        return [from_base64(text, index) for index, text in enumerate(body.images)], body.prompt
    except BadImage as error:
        raise HTTPException(error.status, str(error)) from None


def _validated(build):
    """The wire model's own checks, answered as 422 without echoing the input back."""
    try:
        return build()
    except ValidationError as error:
        raise HTTPException(422, json.loads(error.json(include_url=False, include_input=False))) from None


app = BuiltAtStartup(build_app)


def main() -> None:
    serve(app, get_settings())


if __name__ == "__main__":
    main()

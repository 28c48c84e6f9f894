"""The pages' own HTML, JS and CSS, shipped inside the package (no CDN, no framework)."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

STATIC = Path(__file__).resolve().parent / "static"


def mount_static(app: FastAPI, page: str) -> None:
    """`page` answers at /, the rest of the folder under /static."""
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / page, headers={"cache-control": "no-cache"})

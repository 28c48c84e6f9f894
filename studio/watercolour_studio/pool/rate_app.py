"""The grading page's HTTP side: every grade and undo is on disk before the answer goes back."""

from __future__ import annotations

from collections import Counter
from urllib.parse import quote

from fastapi import FastAPI, HTTPException
from fastapi.responses import FileResponse
from pydantic import BaseModel

from watercolour_shared.reference_pool import TIERS
from watercolour_studio.pool.collection import Collection
from watercolour_studio.static_files import mount_static


class Grade(BaseModel):
    file_name: str
    tier: str


def rate_app(collection: Collection) -> FastAPI:
    app = FastAPI(title="watercolour pool rate", docs_url=None, redoc_url=None)
    mount_static(app, "rate.html")

    @app.get("/api/state")
    def state() -> dict:
        return _state(collection)

    @app.post("/api/grade")
    def grade(given: Grade) -> dict:
        try:
            collection.grade(given.file_name, given.tier)
        except ValueError as error:
            raise HTTPException(422, str(error)) from None
        return _state(collection)

    @app.post("/api/undo")
    def undo() -> dict:
        undone = collection.undo()
        return {**_state(collection), "undone": undone}

    @app.get("/paintings/{file_name:path}")
    def painting(file_name: str) -> FileResponse:
        path = collection.image(file_name)
        if path is None or not path.is_file():
            raise HTTPException(404, "not a painting of this folder")
        return FileResponse(path)

    return app


def _state(collection: Collection) -> dict:
    grades = collection.grades()
    paintings = [
        {
            "file_name": row["file_name"],
            "image": "/paintings/" + quote(row["file_name"]),
            "subject": row.get("subject", ""),
            "generator": row.get("generator", ""),
            "tier": grades.get(row["file_name"]),
        }
        for row in collection.rows()
    ]
    counts = Counter(grades.get(p["file_name"]) for p in paintings)
    return {
        "folder": collection.folder.name,
        "tiers": list(TIERS),
        "paintings": paintings,
        "graded": sum(counts[tier] for tier in TIERS),
        "counts": {tier: counts[tier] for tier in TIERS},
        "can_undo": bool(collection.standing()),
    }

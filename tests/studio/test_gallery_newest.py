"""`watercolour gallery FOLDER --newest`, as the compose gallery serves the runs volume: nothing before the first run,
then always the run written last, with its evaluation page. No browser: the gallery's own HTTP answers."""

from __future__ import annotations

import os

from fastapi.testclient import TestClient

from tests.studio.film import write_plan
from watercolour_studio.checks.run_checks import CheckOptions
from watercolour_studio.gallery.app import gallery_app
from watercolour_studio.gallery.newest import NO_RUN, newest_gallery

EVAL_PAGE = "<html><body>B's win rate 75%<img src='paintings/B/x.png'></body></html>"


def test_the_gallery_follows_the_newest_run_and_serves_its_evaluation(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    client = TestClient(newest_gallery(runs, lambda run: gallery_app(run, CheckOptions())))
    empty = client.get("/api/run").json()
    assert (empty["name"], empty["steps"], empty["evaluation"]) == (NO_RUN, [], None)
    assert client.get("/api/checks").status_code == 200 and "gallery" in client.get("/").text

    for age, name in enumerate(("demo-2", "demo-1")):  # written in this order, so demo-1 is the newer
        write_plan(runs / name)
        os.utime(runs / name, ns=(age, age))
    assert client.get("/api/run").json()["name"] == "demo-1"

    write_plan(runs / "demo-3")
    (runs / "demo-3" / "eval" / "paintings" / "B").mkdir(parents=True)
    (runs / "demo-3" / "eval" / "index.html").write_text(EVAL_PAGE)
    (runs / "demo-3" / "eval" / "paintings" / "B" / "x.png").write_bytes(b"png")
    shown = client.get("/api/run").json()
    assert (shown["name"], shown["evaluation"]) == ("demo-3", "/eval/")
    assert client.get("/eval/").text == EVAL_PAGE and client.get("/eval/paintings/B/x.png").content == b"png"
    assert client.get("/eval/%2e%2e/run.json").status_code == 404  # nothing outside the evaluation's folder

"""`watercolour gallery FOLDER --newest`: the gallery of the newest run in a folder of runs (the compose
`runs` volume), looked for again on each request, so a run that starts after the gallery shows on refresh."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from starlette.types import ASGIApp, Receive, Scope, Send

from watercolour_shared.run_dir import RunReader

# Before the first run the gallery reads a run that is not there yet: no plan, no step, and this name.
NO_RUN = "no run yet"


def newest_run(folder: Path) -> Path:
    """The run directory written last (the order `ls -t` gives), or the run that is not there yet."""
    runs = [entry for entry in folder.iterdir() if entry.is_dir()]
    return max(runs, key=lambda run: run.stat().st_mtime_ns, default=folder / NO_RUN)


def newest_gallery(folder: Path, gallery: Callable[[RunReader], ASGIApp]) -> ASGIApp:
    apps: dict[Path, ASGIApp] = {}  # one gallery a run, each keeping its reader's cache of parsed steps

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        run = newest_run(folder)
        if run not in apps:
            apps[run] = gallery(RunReader(run))
        await apps[run](scope, receive, send)

    return app

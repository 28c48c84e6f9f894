"""The gallery's HTTP side: JSON read from the run directory on every request (so a
refresh sees new steps), paginated, and the film's files served as they are."""

from __future__ import annotations

from collections import Counter

from fastapi import FastAPI, HTTPException, Query
from fastapi.responses import FileResponse, PlainTextResponse

from watercolour_shared.reference_pool import ReferencePool
from watercolour_shared.reward import MIX_TERMS
from watercolour_shared.run_dir import LOW_REWARD, FilmRollout, FilmTurn, RunReader, by_group, mean_reward
from watercolour_shared.run_dir.evaluation import EVAL_DIR
from watercolour_studio.checks.run_checks import CheckOptions, run_checks
from watercolour_studio.eval.page import PAGE as EVAL_PAGE
from watercolour_studio.gallery.cards import BANDS, card, matches, median
from watercolour_studio.gallery.code import highlighted, stylesheet
from watercolour_studio.gallery.held_out import held_out_view
from watercolour_studio.gallery.references import faced
from watercolour_studio.static_files import mount_static

PAGE_LIMIT = 200


def gallery_app(run: RunReader, checks: CheckOptions, pool: ReferencePool | None = None) -> FastAPI:
    app = FastAPI(title="watercolour gallery", docs_url=None, redoc_url=None)
    references = {entry.id: entry.image for entry in pool.entries} if pool else {}
    evaluation = run.root / EVAL_DIR
    mount_static(app, "gallery.html")

    @app.get("/api/run")
    def run_info() -> dict:
        plan = run.plan()
        return {
            "name": run.root.name,
            "plan": plan.model_dump(mode="json") if plan else {},
            "metrics": [metrics.model_dump(mode="json") for metrics in run.metrics()],
            "steps": run.steps(),
            "terms": MIX_TERMS,
            "low_reward": LOW_REWARD,
            "bands": BANDS,
            "held_out": held_out_view(run.root),
            "evaluation": f"/{EVAL_DIR}/" if (evaluation / EVAL_PAGE).is_file() else None,
        }

    @app.get("/api/steps")
    def steps() -> list[dict]:
        return [_step_summary(step, run.rollouts(step)) for step in run.steps()]

    @app.get("/api/steps/{step}")
    def step_page(
        step: int,
        band: str | None = None,
        violation: str | None = None,
        group: int | None = None,
        offset: int = 0,
        limit: int = Query(24, le=PAGE_LIMIT),
    ):
        rollouts = run.rollouts(step)
        matched = [r for r in rollouts if matches(r, band, violation, group)]
        items = [card(r) for r in matched[offset : offset + limit]]
        return {"step": step, "total": len(rollouts), "matched": len(matched), "offset": offset, "limit": limit, "items": items}

    @app.get("/api/steps/{step}/rollouts/{index}")
    def rollout(step: int, index: int) -> dict:
        found = run.rollout(step, index)
        if found is None:
            raise HTTPException(404, f"no rollout {index} in step {step}")
        code = found.js.read_text(errors="replace") if found.js else ""
        pool_urls = {ref: f"/pool/{ref}" for ref in references}
        return {
            **card(found),
            "record": found.record.as_json(),
            "code": code,
            "code_html": highlighted(code),
            "references": faced(found, pool_urls),
            "turns": [_turn(found.record.step, filmed) for filmed in found.turns],
        }

    @app.get("/api/checks")
    def checks_now() -> list[dict]:
        return [check.as_json() for check in run_checks(run, checks)]

    @app.get("/film/{step}/{name}")
    def film_file(step: int, name: str) -> FileResponse:
        path = run.film_file(step, name)
        if path is None:
            raise HTTPException(404, "not a file of the film")
        # Revalidated each time: a resumed run plays its later steps again under the same names.
        return FileResponse(path, headers={"cache-control": "no-cache"})

    @app.get(f"/{EVAL_DIR}/{{name:path}}")
    def evaluation_file(name: str) -> FileResponse:
        """The run's evaluation page and its paintings, whose paths are relative to the page (`watercolour eval`)."""
        path = (evaluation / (name or EVAL_PAGE)).resolve()
        if not path.is_file() or not path.is_relative_to(evaluation.resolve()):
            raise HTTPException(404, "not a file of the run's evaluation")
        return FileResponse(path, headers={"cache-control": "no-cache"})

    @app.get("/pool/{reference}")
    def reference_image(reference: str) -> FileResponse:
        if reference not in references:
            raise HTTPException(404, "not a reference of the pool")
        return FileResponse(references[reference])

    @app.get("/highlight.css")
    def highlight_css() -> PlainTextResponse:
        return PlainTextResponse(stylesheet(), media_type="text/css")

    return app


def _turn(step: int, filmed: FilmTurn) -> dict:
    """One painting of a rollout's revision chain, in the order painted: the painting, its code and its critique."""
    turn = filmed.turn
    code = filmed.js.read_text(errors="replace") if filmed.js else turn.code
    return {
        "turn": turn.turn,
        "image": f"/film/{step}/{filmed.png.name}" if filmed.png else None,
        "status": turn.render.status if turn.render else "unavailable",
        "violations": [violation.code.value for violation in turn.render.violations] if turn.render else [],
        "critique": turn.critique,
        "critique_source": turn.critique_source,
        "revisions_left": turn.revisions_left,
        "handed_in": turn.handed_in,
        "failure": turn.failure,
        "code_html": highlighted(code),
    }


def _step_summary(step: int, rollouts: list[FilmRollout]) -> dict:
    rewards = [r.record.reward for r in rollouts if r.record.reward is not None]
    middle = median(rollouts)
    return {
        "step": step,
        "rollouts": len(rollouts),
        "painted": sum(r.png is not None for r in rollouts),
        "dropped": len(rollouts) - len(rewards),
        "mean": mean_reward([r.record for r in rollouts]),
        "median": card(middle) if middle else None,
        "violations": Counter(code for r in rollouts for code in r.record.violations),
        "groups": _groups(rollouts),
    }


def _groups(rollouts: list[FilmRollout]) -> list[dict]:
    """Each GRPO group of the step apart: its prompt and its mean reward."""
    groups = by_group([r.record for r in rollouts])
    return [
        {"group": group, "prompt": members[0].prompt, "rollouts": len(members), "mean": mean_reward(members)}
        for group, members in groups.items()
    ]

"""The held-out curve as the Curves view draws it beside the reward (docs/evaluation.md, "Reading the curve"): each
checkpoint's win rate against the starting policy with its interval, and the best checkpoint as check 7 names it."""

from __future__ import annotations

from pathlib import Path

from watercolour_shared.run_dir.curve import curve_path, read_curve
from watercolour_studio.checks.held_out import best_point, describe_point, how_to_draw, measured_against, name_best


def held_out_view(run_dir: Path) -> dict:
    """`points` to draw (none without a curve), the `best` step and what it says, what the curve is measured
    against; `missing` is the line shown instead when there is no curve to draw, saying how to make one."""
    try:
        curve = read_curve(run_dir)
    except ValueError as error:  # pydantic's ValidationError: check 7 fails on it, with the whole reason
        return {"points": [], "missing": f"{curve_path(run_dir)} does not fit the curve's record: {str(error).splitlines()[0]}"}
    if curve is None:
        return {"points": [], "missing": f"No held-out curve yet: {how_to_draw(run_dir)}."}
    best = best_point(curve.points)
    points = [
        {"step": p.step, **p.head_to_head.win_rate.model_dump(include={"mean", "low", "high"}), "text": describe_point(p)}
        for p in curve.points
    ]
    return {
        "points": points,
        "best": best.step if best else None,
        "best_text": name_best(best) if best else "no checkpoint has a win rate yet",
        "against": measured_against(curve),
        "missing": None,
    }

"""Check 7: the held-out curve (`curve/curve.json`, docs/evaluation.md "Reading the curve") follows the reward.

GRPO optimises the reward, gamed parts included; a policy that games it scores ever higher in training while
it paints no better, or worse, on subjects it never trained on. The curve says which: each saved checkpoint's
win rate against the starting policy, on a held-out set.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from watercolour_shared.run_dir import FilmRollout, RunReader, StepMetrics
from watercolour_shared.run_dir.curve import Curve, CurvePoint, curve_path, read_curve
from watercolour_studio.checks.film_checks import subject_means
from watercolour_studio.checks.report import Check
from watercolour_studio.checks.trend import Trend, linear_trend

HELD_OUT = "held-out curve"


def held_out_curve(run: RunReader, metrics: list[StepMetrics], rollouts: list[FilmRollout]) -> Check:
    """Fails when the training reward rose while the held-out win rate fell or stalled (reward hacking); names the
    best checkpoint, the one with the highest held-out win rate (not the last), whatever the status.

    The reward *rose* when its trend over the steps the curve spans (from the first point's step to the last's)
    has its whole 95% interval above 0, taken as check 2 takes it: within subjects where the run paints its
    subjects again, otherwise over the steps' mean rewards (checks/trend.py).

    The held-out win rate *fell or stalled* when, of the points with a win rate, either
      - stalled: the last point's interval does not clear the first point's win rate (last low <= first), so
        no gain since the first checkpoint evaluated is shown; or
      - fell: the best point's win rate is above the last point's whole interval (last high < best).

    Both: FAIL. The curve fell or stalled but the reward did not rise over those steps: WARN (not reward hacking,
    and check 2 judges the reward; still, the held-out did not improve). Otherwise PASS. SKIP when the run has
    no curve, or fewer than two points with a win rate. A curve that does not fit its record fails, with why.
    """
    try:
        curve = read_curve(run.root)
    except (ValidationError, ValueError) as error:
        return Check(HELD_OUT, "fail", f"{curve_path(run.root)} does not fit the curve's record: {str(error)[:300]}")
    if curve is None:
        where = curve_path(run.root).relative_to(run.root)
        return Check(HELD_OUT, "skip", f"no held-out curve ({where}): {how_to_draw(run.root)}")
    points = [p for p in curve.points if measured(p)]
    evidence = [describe_point(point) for point in curve.points]
    if len(points) < 2:
        line = f"{len(points)} checkpoint(s) with a held-out win rate: at least 2 are needed to see the curve move"
        return Check(HELD_OUT, "skip", line, evidence)
    first, last, best = points[0], points[-1], best_point(points)
    first_rate, last_rate, best_rate = (p.head_to_head.win_rate for p in (first, last, best))
    stalled = last_rate.low <= first_rate.mean
    fell = last_rate.high < best_rate.mean
    trend = reward_trend(metrics, rollouts, first.step, last.step)
    rose = trend is not None and trend.low > 0
    named = name_best(best)
    evidence = [measured_against(curve), *evidence, _describe_trend(trend, first.step, last.step)]
    if fell:
        moved = f"the held-out win rate fell (last {last.checkpoint} at {rate_text(last)}, under the best)"
    elif stalled:
        first_said = f"{first_rate.mean:.0%}"
        moved = f"the held-out win rate stalled (last {last.checkpoint} at {rate_text(last)}, not above the first's {first_said})"
    else:
        return Check(HELD_OUT, "pass", f"the held-out win rate rose to {rate_text(last)} at step {last.step}; {named}", evidence)
    if rose:
        return Check(HELD_OUT, "fail", f"the training reward rose while {moved}: reward hacking; {named}", evidence)
    return Check(HELD_OUT, "warn", f"{moved}; the reward did not rise over those steps either; {named}", evidence)


def reward_trend(metrics: list[StepMetrics], rollouts: list[FilmRollout], start: int, end: int) -> Trend | None:
    """The reward's trend over steps start to end, as check 2 takes it (within subjects, else over step means)."""
    spanned = [r for r in rollouts if start <= r.record.step <= end]
    trend = subject_means(spanned)
    if trend is None:
        points = [(row.step, row.reward_mean) for row in metrics if start <= row.step <= end and row.reward_mean is not None]
        trend = linear_trend([float(x) for x, _ in points], [float(y) for _, y in points])
    return trend


def how_to_draw(run_dir: Path) -> str:
    """What draws a run's curve, said where a run has none: check 7's line and the gallery's Curves view."""
    return f"`watercolour curve {run_dir} --env-url URL` draws one, each saved checkpoint against the starting policy"


def measured_against(curve: Curve) -> str:
    held = f"{curve.subjects.count} held-out subjects x {curve.samples} ({curve.pairs} pairs)"
    return f"against {curve.baseline}, {held}, judge {curve.judge}"


def measured(point: CurvePoint) -> bool:
    """Whether the point has a win rate with its interval (an evaluation whose every comparison was left out has none)."""
    rate = point.head_to_head.win_rate
    return None not in (rate.mean, rate.low, rate.high)


def best_point(points: list[CurvePoint]) -> CurvePoint | None:
    """The checkpoint with the highest held-out win rate, the earliest of equals; None when no point has one."""
    return max(filter(measured, points), key=lambda p: p.head_to_head.win_rate.mean, default=None)


def name_best(point: CurvePoint) -> str:
    return f"best checkpoint: {point.checkpoint} (step {point.step}, win rate {rate_text(point)})"


def rate_text(point: CurvePoint) -> str:
    rate = point.head_to_head.win_rate
    return f"{rate.mean:.0%} [{rate.low:.0%}, {rate.high:.0%}]"


def describe_point(point: CurvePoint) -> str:
    match = point.head_to_head
    if not measured(point):
        return f"step {point.step} {point.checkpoint}: no comparison scored ({match.left_out} left out)"
    counts = f"{match.wins} won, {match.losses} lost, {match.ties} tied"
    return f"step {point.step} {point.checkpoint}: win rate {rate_text(point)} ({counts})"


def _describe_trend(trend: Trend | None, start: int, end: int) -> str:
    if trend is None:
        return f"training reward, steps {start}-{end}: too few points for a slope"
    return (
        f"training reward, steps {start}-{end}: slope {trend.slope:+.4f} per step "
        f"(95% interval {trend.low:+.4f} to {trend.high:+.4f}, {trend.points} points)"
    )

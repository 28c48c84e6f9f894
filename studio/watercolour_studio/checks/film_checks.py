"""Checks answered from the film and the metrics: the environment rendered, the reward
moved, every group gave GRPO a signal, and the paintings did not collapse into one."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from statistics import fmean

from watercolour_shared.run_dir import FilmRollout, StepMetrics, all_equal
from watercolour_shared.violations import ViolationCode
from watercolour_studio.checks.report import Check
from watercolour_studio.checks.trend import Trend, linear_trend
from watercolour_studio.eval.diversity import COLLAPSE_SHARE, spread

FLAT = 1e-9  # a component this close to 0 at every step is flat at 0
VERDICT_STEPS = 10  # a run this long whose slope interval spans 0 is not learning; a shorter one is undecided
TREND = "reward trends up"
VARY = "paintings vary"
ENDS_GROUPS = 2  # groups of two paintings or more compared at each end of the run, at least


def rendered(rollouts: list[FilmRollout], max_timeout_share: float) -> Check:
    total = len(rollouts)
    painted = sum(r.png is not None for r in rollouts)
    timeouts = sum(ViolationCode.RENDER_TIMEOUT.value in r.record.violations for r in rollouts)
    dropped = sum(r.record.reward is None for r in rollouts)
    allowed = max_timeout_share * total
    ok = painted > 0 and timeouts <= allowed and dropped <= allowed
    share = f"{timeouts / total:.1%}" if total else "-"
    evidence = [f"{painted} paintings rendered", f"{timeouts} render timeouts ({share})", f"{dropped} rollouts dropped"]
    line = f"{painted} of {total} rollouts rendered a painting; {timeouts} timeouts, {dropped} dropped"
    return Check("environment rendered", "pass" if ok else "fail", f"{line} (at most {max_timeout_share:.0%} allowed)", evidence)


def reward_moves(metrics: list[StepMetrics], rollouts: list[FilmRollout]) -> Check:
    """The mean reward trends up (its slope's whole 95% interval above 0) and no component is flat at 0.

    The slope is taken within subjects where the run paints its subjects again (subject_means), so a hard
    subject's turn does not read as a fall; otherwise over the steps' mean rewards. An interval across 0 fails a
    run of VERDICT_STEPS steps or more. A shorter run is skipped whatever its slope, since so few steps cannot
    tell "not learning" or "falling" from "too early" or "a harder subject". A component flat at 0 fails at any
    length.
    """
    points = [(row.step, row.reward_mean) for row in metrics if row.reward_mean is not None]
    trend, basis = subject_means(rollouts), "within subjects"
    if trend is None:
        trend, basis = linear_trend([float(x) for x, _ in points], [float(y) for _, y in points]), "of step means"
    flat = [name for name, values in _components(metrics).items() if all(abs(v or 0.0) < FLAT for v in values)]
    evidence = [_describe(name, values) for name, values in _components(metrics).items()]
    flat_note = f"; flat at 0: {', '.join(flat)}" if flat else ""
    short = len(points) < VERDICT_STEPS
    if trend is None:
        line = f"{len(points)} steps with a mean reward: too few for a slope{flat_note}"
        return Check(TREND, "fail" if flat or not short else "skip", line, evidence)
    interval = f"95% interval {trend.low:+.4f} to {trend.high:+.4f}, {trend.points} points"
    line = f"slope {trend.slope:+.4f} per step {basis} ± {trend.stderr:.4f} ({interval}){flat_note}"
    if flat:
        return Check(TREND, "fail", line, evidence)
    if trend.low > 0:
        return Check(TREND, "pass", line, evidence)
    if short:
        return Check(TREND, "skip", f"{line}; under {VERDICT_STEPS} steps: too short to judge", evidence)
    return Check(TREND, "fail", line, evidence)


def subject_means(rollouts: list[FilmRollout]) -> Trend | None:
    """The slope within subjects of each subject's mean reward at each step, for a run of several subjects where
    those painted at two steps or more hold at least half of these means; None otherwise (one subject: the step
    means are its own; a new prompt every step; too few repeats)."""
    rewards: dict[tuple[int, str], list[float]] = defaultdict(list)
    for record in (rollout.record for rollout in rollouts):
        if record.reward is not None:
            rewards[(record.step, record.prompt)].append(record.reward)
    if len({prompt for _, prompt in rewards}) < 2:
        return None
    steps = [float(step) for step, _ in rewards]
    trend = linear_trend(steps, [fmean(values) for values in rewards.values()], [prompt for _, prompt in rewards])
    return trend if trend is not None and 2 * trend.points >= len(rewards) else None


def groups_vary(rollouts: list[FilmRollout]) -> Check:
    """A group whose rewards are all equal has zero advantage: GRPO learns nothing from it."""
    groups: dict[tuple[int, int], list[float]] = defaultdict(list)
    for record in (rollout.record for rollout in rollouts):
        if record.reward is not None:
            groups[(record.step, record.group)].append(record.reward)
    equal = [(key, rewards) for key, rewards in sorted(groups.items()) if all_equal(rewards)]
    evidence = [f"step {step} group {group}: {len(rewards)} rewards all {rewards[0]:.3f}" for (step, group), rewards in equal]
    line = f"{len(equal)} of {len(groups)} groups had all-equal rewards"
    return Check("groups differ", "fail" if equal else "pass", line, evidence[:10])


def paintings_vary(rollouts: list[FilmRollout]) -> Check:
    """Warns (never fails) when the paintings of the last steps' groups vary less than COLLAPSE_SHARE as much as
    the first steps': the policy is collapsing into one painting (watercolour_studio.eval.diversity).

    A group's spread is the mean distance between its paintings (those that passed the gate), so the
    prompt is the same within it; each end of the run is the mean over its first or last quarter of the
    groups with two paintings or more, and at least ENDS_GROUPS of them. Skipped with fewer groups than two ends' worth.
    """
    groups: dict[tuple[int, int], list[Path]] = defaultdict(list)
    for rollout in rollouts:
        if rollout.png is not None and rollout.record.status == "passed":
            groups[(rollout.record.step, rollout.record.group)].append(rollout.png)
    compared = [(key, pngs) for key, pngs in sorted(groups.items()) if len(pngs) >= 2]
    if len(compared) < 2 * ENDS_GROUPS:
        painted = sum(map(len, groups.values()))
        line = f"{painted} paintings, {len(compared)} groups with two or more: too few to compare the first steps with the last"
        return Check(VARY, "skip", f"{line} (at least {2 * ENDS_GROUPS} groups needed)")
    size = max(ENDS_GROUPS, len(compared) // 4)
    ends = {"first": compared[:size], "last": compared[-size:]}
    first, last = (_spread(groups) for groups in ends.values())
    evidence = [_describe_end(name, groups, value) for (name, groups), value in zip(ends.items(), (first, last), strict=True)]
    if first == 0:
        return Check(VARY, "pass", "the first steps' paintings were already all alike: nothing to collapse from", evidence)
    share = last / first
    line = f"the last steps' paintings vary {share:.0%} as much as the first steps' (warned below {COLLAPSE_SHARE:.0%})"
    if share < COLLAPSE_SHARE:
        return Check(VARY, "warn", f"{line}: the policy may be collapsing into one painting", evidence)
    return Check(VARY, "pass", line, evidence)


def _spread(groups: list[tuple[tuple[int, int], list[Path]]]) -> float:
    spreads = [spread([png.read_bytes() for png in pngs]) for _, pngs in groups]
    return sum(spreads) / len(spreads)


def _describe_end(name: str, groups: list[tuple[tuple[int, int], list[Path]]], value: float) -> str:
    steps = sorted({step for (step, _), _ in groups})
    span = f"step {steps[0]}" if len(steps) == 1 else f"steps {steps[0]}-{steps[-1]}"
    return f"{name} {len(groups)} groups ({span}): spread {value:.3f}"


def _components(metrics: list[StepMetrics]) -> dict[str, list[float | None]]:
    names = sorted({name for row in metrics for name in row.components})
    return {name: [row.components.get(name) for row in metrics] for name in names}


def _describe(name: str, values: list[float | None]) -> str:
    known = [v for v in values if v is not None]
    if not known:
        return f"{name}: never scored"
    return f"{name}: {min(known):.3f} to {max(known):.3f} over {len(known)} steps"

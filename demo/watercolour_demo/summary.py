"""The closing summary: mean reward and gate pass rate per step, the first third of the steps against the
last third, and where the paintings are. Written to RUN_DIR/summary.json and RUN_DIR/summary.txt."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

from watercolour_demo.choices import WATCHED, share, step_choices
from watercolour_shared.run_dir import RunReader, StepMetrics
from watercolour_shared.run_dir.layout import RunLayout

SHOWN = ("step", "reward_mean", "reward_std", "gate_pass_rate", "dropped", "best")


def _mean(values: list[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return statistics.fmean(present) if present else None


def _third(rows: list[dict]) -> dict:
    return {
        "steps": [row["step"] for row in rows],
        "reward_mean": _mean([row["reward_mean"] for row in rows]),
        "gate_pass_rate": _mean([row["gate_pass_rate"] for row in rows]),
        "watched_share": _mean([share(row["choices"], WATCHED) for row in rows]),
    }


def _gain(run: RunReader, first: dict, last: dict) -> dict | None:
    """The last third's mean reward over the first third's, per rollout, with its standard error: a gain of more
    than two standard errors is one that the rollouts' noise alone would rarely give."""

    def rewards(third: dict) -> list[float]:
        rewards = (rollout.record.reward for step in third["steps"] for rollout in run.rollouts(step))
        return [reward for reward in rewards if reward is not None]

    before, after = rewards(first), rewards(last)
    if len(before) < 2 or len(after) < 2:
        return None
    gain = statistics.fmean(after) - statistics.fmean(before)
    error = math.sqrt(statistics.variance(before) / len(before) + statistics.variance(after) / len(after))
    return {"reward": gain, "standard_error": error, "clear": gain > 2 * error}


def _row(run: RunReader, metrics: StepMetrics) -> dict:
    """The step's numbers the summary shows, and which composition each of its rollouts chose."""
    numbers = metrics.model_dump()
    return {**{key: numbers[key] for key in SHOWN}, "choices": dict(step_choices(run, metrics.step))}


def summarise(run_dir: Path, metrics: list[StepMetrics], context: dict) -> dict:
    """`context`: what the demo knows beyond the metrics (configuration, warm start, wall time)."""
    run = RunReader(run_dir)
    rows = [_row(run, row) for row in metrics]
    size = max(1, len(rows) // 3)
    first, last = _third(rows[:size]), _third(rows[-size:])
    painted = [r for r in run.all_rollouts() if r.png and r.record.reward is not None]
    best = max(painted, key=lambda r: r.record.reward, default=None)
    return {
        **context,
        "steps": rows,
        "watched": WATCHED,
        "first_third": first,
        "last_third": last,
        "last_third_better": None
        if first["reward_mean"] is None or last["reward_mean"] is None
        else last["reward_mean"] > first["reward_mean"],
        "gain": _gain(run, first, last),
        "best_painting": str(best.png) if best else None,
        "film": str(run.film),
    }


def _number(value: float | None, form: str = ".3f") -> str:
    return "n/a" if value is None else format(value, form)


def render(summary: dict) -> str:
    watched = summary["watched"]
    lines = [f"step  reward  ±std   gate pass  {watched}", f"----  ------  -----  ---------  {'-' * len(watched)}"]
    for row in summary["steps"]:
        chosen = row["choices"]
        lines.append(
            f"{row['step']:>4}  {_number(row['reward_mean']):>6}  {_number(row['reward_std']):>5}  "
            f"{_number(row['gate_pass_rate'], '.0%'):>9}  {chosen.get(watched, 0):>{len(watched) - 3}}/{sum(chosen.values())}"
        )
    first, last = summary["first_third"], summary["last_third"]
    verdict = {True: "better", False: "not better", None: "not comparable"}[summary["last_third_better"]]
    if gain := summary["gain"]:
        noise = "more than twice" if gain["clear"] else "within twice"
        verdict += f" by {gain['reward']:+.3f} per rollout ({noise} its standard error, {gain['standard_error']:.3f})"
    lines += [
        "",
        f"first third (steps {first['steps'][0]}-{first['steps'][-1]}): reward {_number(first['reward_mean'])}, "
        f"gate pass {_number(first['gate_pass_rate'], '.0%')}, {watched} {_number(first['watched_share'], '.0%')}",
        f"last third  (steps {last['steps'][0]}-{last['steps'][-1]}): reward {_number(last['reward_mean'])}, "
        f"gate pass {_number(last['gate_pass_rate'], '.0%')}, {watched} {_number(last['watched_share'], '.0%')}"
        f"  -> the last third is {verdict}",
        f"best painting: {summary['best_painting'] or 'none rendered'}",
        f"every rollout (code, painting, reward): {summary['film']}",
    ]
    return "\n".join(lines)


def write(run_dir: Path, summary: dict) -> str:
    text = render(summary)
    RunLayout(run_dir).summary_json.write_text(json.dumps(summary, indent=2))
    RunLayout(run_dir).summary_txt.write_text(text + "\n")
    return text

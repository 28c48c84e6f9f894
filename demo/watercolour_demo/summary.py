"""The closing summary: mean reward, gate pass rate and look per step, the first third of the steps against the
last third, the final policy against its warm start on held-out subjects, and where the paintings are. Written
to RUN_DIR/summary.json and RUN_DIR/summary.txt."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

from watercolour_demo.looks_chosen import mean_look, step_looks
from watercolour_harness.sketchgen.looks import QUALITIES
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
        "look": {name: _mean([row["look"][name] for row in rows]) for name in QUALITIES},
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
    """The step's numbers the summary shows, and the mean look its rollouts chose."""
    numbers = metrics.model_dump()
    return {**{key: numbers[key] for key in SHOWN}, "look": mean_look(step_looks(run, metrics.step))}


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


def _look(look: dict) -> str:
    return "  ".join(f"{_number(look[name], '.2f'):>5}" for name in QUALITIES)


def render(summary: dict) -> str:
    qualities = "  ".join(f"{name:>5}" for name in QUALITIES)
    lines = [
        f"step  reward  ±std   gate pass  {qualities}",
        f"----  ------  -----  ---------  {'  '.join(['-----'] * len(QUALITIES))}",
    ]
    for row in summary["steps"]:
        lines.append(
            f"{row['step']:>4}  {_number(row['reward_mean']):>6}  {_number(row['reward_std']):>5}  "
            f"{_number(row['gate_pass_rate'], '.0%'):>9}  {_look(row['look'])}"
        )
    first, last = summary["first_third"], summary["last_third"]
    verdict = {True: "better", False: "not better", None: "not comparable"}[summary["last_third_better"]]
    if gain := summary["gain"]:
        noise = "more than twice" if gain["clear"] else "within twice"
        verdict += f" by {gain['reward']:+.3f} per rollout ({noise} its standard error, {gain['standard_error']:.3f})"
    lines += [
        "",
        f"first third (steps {first['steps'][0]}-{first['steps'][-1]}): reward {_number(first['reward_mean'])}, "
        f"gate pass {_number(first['gate_pass_rate'], '.0%')}, look {_look(first['look'])}",
        f"last third  (steps {last['steps'][0]}-{last['steps'][-1]}): reward {_number(last['reward_mean'])}, "
        f"gate pass {_number(last['gate_pass_rate'], '.0%')}, look {_look(last['look'])}"
        f"  -> the last third is {verdict}",
        *_evaluation_lines(summary.get("evaluation"), summary.get("evaluation_failed")),
        "",
        verdict_line(summary),
        f"best painting: {summary['best_painting'] or 'none rendered'}",
        f"every rollout (code, painting, reward): {summary['film']}",
    ]
    return "\n".join(lines)


def verdict_line(summary: dict) -> str:
    """One line that squares the reward curve with the held-out evaluation: the evaluation decides whether the policy
    learned (docs/evaluation.md), and where the two disagree the line says why."""
    gain, evaluation = summary.get("gain"), summary.get("evaluation")
    rose = bool(gain and gain["clear"])
    if summary.get("evaluation_failed") or evaluation is None:
        return "did it learn? not measured: without the held-out evaluation the reward curve alone is no evidence"
    rate = evaluation["win_rate"]
    if evaluation["better"]:
        if rose:
            return "did it learn? yes: the reward rose clearly and the final policy beats its warm start on held-out subjects"
        return (
            "did it learn? yes, on held-out subjects; the reward's rise is within its noise, since a third of the steps "
            "holds few rollouts, so the evaluation, not the curve, is the evidence"
        )
    if rate["high"] is not None and rate["high"] < 0.5:
        return "did it learn? no: the final policy loses to its warm start on held-out subjects"
    if rose:
        return (
            "did it learn? not shown: the reward rose, but the held-out evaluation does not show the final policy better "
            "(either the gain does not carry to subjects it never saw, or the pairs are too few to show it)"
        )
    return "did it learn? not shown: neither the reward nor the held-out evaluation shows a gain"


def _pairs_said(pairs: str) -> str:
    """What one comparison of the evaluation is (docs/evaluation.md, "Pairs")."""
    if pairs == "all":
        return "every warm-start painting of a subject against every final one (all pairs)"
    return "each sample against the same sample (matched pairs)"


def _evaluation_lines(evaluation: dict | None, failed: str | None) -> list[str]:
    if failed:
        return ["", f"the evaluation of the final policy failed: {failed}"]
    if evaluation is None:
        return []
    rate, subjects = evaluation["win_rate"], evaluation["subjects"]
    interval = "no interval" if rate["low"] is None else f"95% interval {rate['low']:.0%}-{rate['high']:.0%}"
    ratio = evaluation["diversity_ratio"]
    return [
        "",
        f"final policy against its warm start, {subjects['count']} held-out subjects ({subjects['name']}) x "
        f"{evaluation['samples']} paintings, {_pairs_said(evaluation['pairs'])}, judged in both orders by {evaluation['judge']}:",
        f"  win rate {_number(rate['mean'], '.0%')} ({interval}); {evaluation['wins']} won, {evaluation['losses']} lost, "
        f"{evaluation['ties']} tied, {evaluation['left_out']} left out",
        f"  diversity: the final policy's paintings vary {_number(ratio, '.0%')} as much as the warm start's",
        f"  ({evaluation['note']}; the page: {evaluation['page']})",
        *(f"  warning: {warning}" for warning in evaluation["warnings"]),
    ]


def write(run_dir: Path, summary: dict) -> str:
    text = render(summary)
    RunLayout(run_dir).summary_json.write_text(json.dumps(summary, indent=2))
    RunLayout(run_dir).summary_txt.write_text(text + "\n")
    return text

"""From every subject's paintings and matches to the numbers on top of eval.json: per policy, head to head,
and the diversity ratio. Every mean comes with a 95% interval over subjects (stats.py); left-out
paintings and comparisons count in no mean."""

from __future__ import annotations

from collections import Counter

from watercolour_shared.run_dir.evaluation import HeadToHead, Interval, Match, Painting, PolicySummary, SubjectRow
from watercolour_studio.eval.head_to_head import SCORES
from watercolour_studio.eval.stats import subject_interval


def policy_summary(label: str, source: str, rows: list[SubjectRow], js_chars: dict[str, int]) -> PolicySummary:
    """`js_chars`: each painting's code length, by its .js path."""
    mine = [getattr(row, label.lower()) for row in rows]
    answered = [[p for p in paintings if p.status != "unavailable"] for paintings in mine]
    violations = Counter(code for paintings in answered for p in paintings for code in p.violations)
    scorers = {p.hps_scorer for paintings in answered for p in paintings if p.hps_scorer}
    return PolicySummary(
        label=label,
        source=source,
        paintings=sum(len(paintings) for paintings in answered),
        unavailable=sum(len(all_) - len(ok) for all_, ok in zip(mine, answered, strict=True)),
        gate_pass_rate=subject_interval([[float(p.status == "passed") for p in paintings] for paintings in answered]),
        violations=dict(violations.most_common()),
        length_chars=subject_interval([[js_chars[p.js] for p in paintings] for paintings in answered]),
        length_term=_term(answered, "length"),
        hps=_term(answered, "hps"),
        hps_scorer=", ".join(sorted(scorers)) or None,
        judge=_term(answered, "judge"),
        diversity=subject_interval([[row.diversity[label]] for row in rows if row.diversity.get(label) is not None]),
        distinct_code=subject_interval([[row.distinct_code[label]] for row in rows if row.distinct_code.get(label) is not None]),
    )


def _term(answered: list[list[Painting]], term: str) -> Interval:
    return subject_interval([[p.reward[term] for p in paintings if p.reward.get(term) is not None] for paintings in answered])


def head_to_head(rows: list[SubjectRow]) -> HeadToHead:
    """The counts are comparisons (matched or all pairs); a subject's scores are all of its comparisons, and the
    interval resamples subjects (stats.py), so comparisons that share a painting are never taken as independent."""
    return win_rate([row.matches for row in rows])


def revision_gain(rows: list[SubjectRow], label: str) -> HeadToHead:
    """A policy's last paintings against its own first ones (each episode's pair), counted as B against A is: the
    last painting is B. 50% is a revision that changed nothing a judge can see; below it, revising made it worse."""
    return win_rate([row.gain.get(label, []) for row in rows])


def win_rate(matches_by_subject: list[list[Match]]) -> HeadToHead:
    """Win 1, tie 0.5, loss 0, with the interval from a bootstrap over subjects; left-out comparisons count in none."""
    outcomes = Counter(match.outcome for matches in matches_by_subject for match in matches)
    decided = [[SCORES[m.outcome] for m in matches if m.outcome in SCORES] for matches in matches_by_subject]
    rate = subject_interval(decided)
    judged = outcomes["win"] + outcomes["loss"] + outcomes["tie"]
    return HeadToHead(
        win_rate=rate,
        wins=outcomes["win"],
        losses=outcomes["loss"],
        ties=outcomes["tie"],
        left_out=outcomes["left-out"],
        tie_share=outcomes["tie"] / judged if judged else None,
        better=rate.low is not None and rate.low > 0.5,
    )


def left_out(rows: list[SubjectRow], label: str) -> dict[str, int]:
    """A policy's paintings that were left out (no answer from the policy or the environment), by why, most first:
    the same count as its summary's `unavailable`, told apart."""
    why = Counter(p.failure or "no answer" for row in rows for p in getattr(row, label.lower()) if p.status == "unavailable")
    return dict(why.most_common())


def ratio(b: Interval, a: Interval) -> float | None:
    return b.mean / a.mean if a.mean and b.mean is not None else None

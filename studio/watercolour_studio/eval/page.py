"""`index.html` of an eval folder: the numbers on top, then every subject with A's and B's paintings side by side
and each match's two verdicts. One static file, no script, no network: it opens from file:// next to the paintings
it shows (their paths in eval.json are relative to the folder). Everything a model or a sketch wrote (subjects,
reasons, violations, sources) is escaped."""

from __future__ import annotations

from html import escape
from pathlib import Path
from urllib.parse import quote

from watercolour_shared.run_dir.evaluation import Evaluation, Interval, Match, Painting, PolicySummary, SubjectRow, Turn
from watercolour_shared.run_dir.writer import atomic_write

PAGE = "index.html"
LABELS = ("A", "B")
DASH = "—"
OUTCOME_TEXT = {"win": "B wins", "loss": "B loses", "tie": "tie", "left-out": "left out"}
GAIN_TEXT = {"win": "the revision wins", "loss": "the revision loses", "tie": "tie", "left-out": "left out"}
PAIRS_TEXT = {  # what one comparison is, under each way of pairing a subject's paintings
    "matched": "matched: A's sample k against B's sample k, one comparison a sample",
    "all": "all: every A painting against every B painting of the subject, samples x samples comparisons",
}

CSS = """
:root {
  --paper: #f6f1e7; --card: #fffdf8; --ink: #2b2620; --muted: #7a7064; --line: #e2d9ca;
  --low: #c2553d; --mid: #d49a2a; --high: #4f8a4b; --dropped: #8a8a8a;
  font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: var(--paper);
}
* { box-sizing: border-box; }
body { margin: 0; }
header { padding: 0.8rem 1.5rem; border-bottom: 1px solid var(--line); background: var(--card); }
header h1 { font-size: 1.2rem; margin: 0; }
header .created { color: var(--muted); font-size: 0.85rem; }
main { padding: 1.2rem 1.5rem 3rem; max-width: 1500px; margin: 0 auto; }
h2 { font-size: 1.05rem; margin: 0 0 0.6rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 0.9rem 1.1rem; margin-bottom: 1rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; margin: 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.muted { color: var(--muted); }
code, .mono { font-family: ui-monospace, monospace; font-size: 0.88em; }
.win-rate { font-size: 1.8rem; font-weight: 650; }
.better[data-better="true"] { color: var(--high); font-weight: 600; }
.better[data-better="false"] { color: var(--muted); font-weight: 600; }
.same-judge[data-same-judge="true"] { color: var(--low); font-weight: 600; }
ul.warnings { list-style: none; margin: 0 0 1rem; padding: 0; }
li.warning {
  background: #fbe6df; border: 2px solid var(--low); border-radius: 8px; padding: 0.6rem 0.9rem;
  margin-bottom: 0.5rem; font-weight: 600;
}
li.warning::before { content: "⚠ "; }
table.policies { border-collapse: collapse; width: 100%; background: var(--card); }
table.policies th, table.policies td {
  border: 1px solid var(--line); padding: 0.35rem 0.6rem; text-align: left; vertical-align: top;
}
table.policies thead th { background: #efe7d8; }
table.policies .source { display: block; color: var(--muted); font-weight: normal; overflow-wrap: anywhere; }
section.subject {
  background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 0.9rem 1.1rem; margin: 1rem 0;
}
section.subject .spread { color: var(--muted); font-size: 0.88rem; margin-bottom: 0.6rem; }
.sides { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; }
.side h3 { font-size: 0.95rem; margin: 0 0 0.4rem; }
.paintings { display: flex; flex-wrap: wrap; gap: 0.6rem; }
figure.painting { margin: 0; width: 220px; border: 1px solid var(--line); border-radius: 6px; padding: 0.4rem; background: #fff; }
figure.painting img { width: 100%; height: auto; display: block; border-radius: 4px; }
figure.painting .missing {
  aspect-ratio: 1; display: flex; flex-direction: column; justify-content: center; align-items: center; gap: 0.3rem;
  background: #eee8dd; border-radius: 4px; color: var(--muted); text-align: center; padding: 0.4rem;
}
figcaption { font-size: 0.8rem; color: var(--muted); margin-top: 0.3rem; overflow-wrap: anywhere; }
.status { font-weight: 600; }
.status[data-status="passed"] { color: var(--high); }
.status[data-status="failed"] { color: var(--low); }
.status[data-status="unavailable"] { color: var(--dropped); }
ul.violations { margin: 0.2rem 0 0; padding-left: 1rem; color: var(--low); }
ol.matches { list-style: none; padding: 0; margin: 0.8rem 0 0; }
li.match { border-top: 1px dashed var(--line); padding: 0.5rem 0; }
.outcome { font-weight: 650; padding: 0.05rem 0.5rem; border-radius: 999px; color: #fff; }
.outcome[data-outcome="win"] { background: var(--high); }
.outcome[data-outcome="loss"] { background: var(--low); }
.outcome[data-outcome="tie"] { background: var(--mid); }
.outcome[data-outcome="left-out"] { background: var(--dropped); }
.why { color: var(--muted); margin-left: 0.4rem; }
.verdicts { display: grid; grid-template-columns: 1fr 1fr; gap: 0.6rem; margin-top: 0.4rem; }
.verdict { font-size: 0.88rem; }
.verdict .reason { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0.2rem 0 0; }
"""
# Added to the page of an eval with revisions only, so a page without them is the page it was.
REVISIONS_CSS = """
.chains { margin-top: 0.8rem; }
.chain { display: flex; flex-wrap: wrap; gap: 0.6rem; align-items: flex-start; margin: 0.4rem 0; }
.chain .critique { font-size: 0.78rem; white-space: pre-wrap; overflow-wrap: anywhere; margin: 0.3rem 0 0; }
.gain-rates { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; margin: 0; }
"""


def write_page(folder: Path, evaluation: Evaluation) -> Path:
    path = Path(folder) / PAGE
    atomic_write(path, render_page(evaluation).encode("utf-8"))
    return path


def render_page(evaluation: Evaluation) -> str:
    title = f"eval: B against A on {evaluation.subjects.name}"
    body = "\n".join(
        [
            f'<header><h1>{_e(title)}</h1><div class="created">{_e(evaluation.created)}</div></header>',
            "<main>",
            _warnings(evaluation.warnings),
            '<div class="sides">',
            _facts(evaluation),
            _head_to_head(evaluation),
            "</div>",
            *([_revision_gain(evaluation)] if evaluation.revisions else []),
            _policies(evaluation.policies),
            '<h2 class="subjects-title">Subjects</h2>',
            *(_subject(row, evaluation.policies) for row in evaluation.rows),
            "</main>",
        ]
    )
    css = CSS + REVISIONS_CSS if evaluation.revisions else CSS
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_e(title)}</title>\n<style>{css}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _src(relative: str) -> str:
    """A relative path of the eval folder as an attribute: percent-encoded, so no scheme or odd name gets through."""
    return _e(quote(relative.replace("\\", "/"), safe="/"))


def _pct(value: float | None) -> str:
    return DASH if value is None else f"{value:.0%}"


def _num(value: float | None, kind: str = "num") -> str:
    if value is None:
        return DASH
    if kind == "pct":
        return _pct(value)
    if kind == "int":
        return f"{value:.0f}"
    return f"{value:.3f}"


def _interval(interval: Interval, kind: str = "num") -> str:
    if interval.mean is None:
        return DASH
    text = _num(interval.mean, kind)
    if interval.low is not None and interval.high is not None:
        text += f" [{_num(interval.low, kind)}, {_num(interval.high, kind)}]"
    return text


def _warnings(warnings: list[str]) -> str:
    if not warnings:
        return ""
    items = "".join(f'<li class="warning">{_e(warning)}</li>' for warning in warnings)
    return f'<ul class="warnings" role="alert">{items}</ul>'


def _facts(evaluation: Evaluation) -> str:
    subjects = evaluation.subjects
    same = evaluation.same_judge
    if same is None:
        same_text, same_attr = "unknown (B's run recorded no judge)", "unknown"
    elif same:
        same_text, same_attr = "yes: the judge that trained B (not held out)", "true"
    else:
        trained = f"; B was trained by {evaluation.training_judge}" if evaluation.training_judge else ""
        same_text, same_attr = f"no: held out{trained}", "false"
    rows = [
        ("subjects", f'<span class="subject-set">{_e(subjects.name)}</span>, '
         f'<span class="subject-count">{subjects.count}</span> subjects, '
         f'sha256 <code class="subject-sha">{_e(subjects.sha256[:12])}</code>'),
        ("samples per subject", f'<span class="samples">{evaluation.samples}</span>'),
        ("seed", f'<span class="seed">{evaluation.seed}</span>'),
        ("pairs", f'<span class="pairs" data-pairs="{_e(evaluation.pairs)}">{_e(PAIRS_TEXT[evaluation.pairs])}</span>'),
        ("judge", f'<span class="judge">{_e(evaluation.judge)}</span>'),
        ("same judge as B's training",
         f'<span class="same-judge" data-same-judge="{same_attr}">{_e(same_text)}</span>'),
    ]  # fmt: skip
    items = "".join(f"<dt>{_e(name)}</dt><dd>{value}</dd>" for name, value in rows)
    return f'<div class="card facts-card"><h2>Setup</h2><dl class="facts">{items}</dl></div>'


def _head_to_head(evaluation: Evaluation) -> str:
    match = evaluation.head_to_head
    rate = match.win_rate
    better = "B is better: the interval lies above 50%" if match.better else "B is not shown better"
    ratio = DASH if evaluation.diversity_ratio is None else f"{evaluation.diversity_ratio:.2f}"
    rows = [
        ("comparisons won / lost / tied / left out",
         f'<span class="wins">{match.wins}</span> / <span class="losses">{match.losses}</span> / '
         f'<span class="ties">{match.ties}</span> / <span class="left-out">{match.left_out}</span>'),
        ("tie share", f'<span class="tie-share">{_pct(match.tie_share)}</span>'),
        ("diversity ratio (B / A)", f'<span class="diversity-ratio">{ratio}</span>'),
    ]  # fmt: skip
    items = "".join(f"<dt>{_e(name)}</dt><dd>{value}</dd>" for name, value in rows)
    of_what = ", last paintings" if evaluation.revisions else ""
    return (
        f'<div class="card head-to-head"><h2>Head to head: B\'s win rate against A{of_what}</h2>'
        f"{_rate(rate)}"
        f'<p class="better" data-better="{str(match.better).lower()}">{_e(better)}</p>'
        f'<dl class="facts">{items}</dl></div>'
    )


def _rate(rate: Interval) -> str:
    interval = f"[{_pct(rate.low)}, {_pct(rate.high)}]" if rate.low is not None and rate.high is not None else ""
    return (
        f'<div><span class="win-rate">{_pct(rate.mean)}</span> '
        f'<span class="win-rate-interval">{interval}</span> <span class="muted">(95%, n={rate.n})</span></div>'
    )


def _revision_gain(evaluation: Evaluation) -> str:
    """Each policy's last paintings against its own first: the win rate of revising, beside B against A."""
    cards = []
    for label, gain in evaluation.revision_gain.items():
        shown = "revising made it better: the interval lies above 50%" if gain.better else "not shown better by revising"
        counts = f"{gain.wins} won, {gain.losses} lost, {gain.ties} tied, {gain.left_out} left out"
        cards.append(
            f'<div class="gain" data-policy="{_e(label)}"><h3>{_e(label)}: last painting against its first</h3>'
            f'{_rate(gain.win_rate)}<p class="better" data-better="{str(gain.better).lower()}">{_e(shown)}</p>'
            f'<p class="gain-counts muted">{_e(counts)}, tie share {_pct(gain.tie_share)}</p></div>'
        )
    plural = "s" if evaluation.revisions > 1 else ""
    return (
        f'<div class="card revision-gain" data-revisions="{evaluation.revisions}"><h2>Revision gain: '
        f"{evaluation.revisions} revision{plural}, each after the environment's critique</h2>"
        f'<div class="sides">{"".join(cards)}</div></div>'
    )


def _policies(policies: dict[str, PolicySummary]) -> str:
    labels = [label for label in LABELS if label in policies] + [label for label in policies if label not in LABELS]
    summaries = [policies[label] for label in labels]
    head = "".join(
        f'<th data-policy="{_e(s.label)}">{_e(s.label)}<span class="source">{_e(s.source)}</span></th>' for s in summaries
    )
    scorers = sorted({s.hps_scorer for s in summaries if s.hps_scorer})
    rows: list[tuple[str, str, list[str]]] = [
        ("paintings", "paintings", [str(s.paintings) for s in summaries]),
        ("unavailable", "unavailable", [str(s.unavailable) for s in summaries]),
        ("gate_pass_rate", "gate pass rate", [_interval(s.gate_pass_rate, "pct") for s in summaries]),
    ]
    codes = sorted({code for s in summaries for code in s.violations})
    for code in codes:
        rows.append((f"violations:{code}", f"violations: {code}", [str(s.violations.get(code, 0)) for s in summaries]))
    if not codes:
        rows.append(("violations", "violations", ["0" for _ in summaries]))
    rows += [
        ("length_chars", "length (chars)", [_interval(s.length_chars, "int") for s in summaries]),
        ("length_term", "length term", [_interval(s.length_term) for s in summaries]),
        ("hps", f"HPS ({', '.join(scorers) or 'scorer unknown'})", [_hps(s) for s in summaries]),
        ("judge", "judge score", [_interval(s.judge) for s in summaries]),
        ("diversity", "diversity", [_interval(s.diversity) for s in summaries]),
        ("distinct_code", "distinct code", [_interval(s.distinct_code, "pct") for s in summaries]),
    ]
    body = "".join(
        f'<tr data-metric="{_e(metric)}"><th scope="row">{_e(name)}</th>'
        + "".join(f'<td data-policy="{_e(s.label)}">{cell}</td>' for s, cell in zip(summaries, cells, strict=True))
        + "</tr>"
        for metric, name, cells in rows
    )
    return (
        '<div class="card"><h2>Per policy: mean [95% interval over subjects]</h2>'
        f'<table class="policies"><thead><tr><th>measure</th>{head}</tr></thead><tbody>{body}</tbody></table></div>'
    )


def _hps(summary: PolicySummary) -> str:
    scorer = summary.hps_scorer or "scorer unknown"
    return f'{_interval(summary.hps)} <span class="scorer">{_e(scorer)}</span>'


def _subject(row: SubjectRow, policies: dict[str, PolicySummary]) -> str:
    spread = " · ".join(
        f"{label}: diversity {_num(row.diversity.get(label))}, distinct code {_num(row.distinct_code.get(label), 'pct')}"
        for label in LABELS
    )
    sides = "".join(
        f'<div class="side" data-policy="{label}"><h3>{label}'
        f"{': ' + _e(policies[label].source) if label in policies else ''}</h3>"
        f'<div class="paintings">{"".join(_painting(p) for p in paintings)}</div></div>'
        for label, paintings in (("A", row.a), ("B", row.b))
    )
    matches = "".join(_match(match) for match in row.matches)
    return (
        f'<section class="subject" data-subject="{_e(row.subject)}"><h2 class="subject-name">{_e(row.subject)}</h2>'
        f'<div class="spread">{spread}</div><div class="sides">{sides}</div>'
        f'<ol class="matches">{matches}</ol>{_chains(row) if row.turns else ""}</section>'
    )


def _chains(row: SubjectRow) -> str:
    """Each policy's episodes: every turn's painting and the critique it read, then its last against its first."""
    sides = []
    for label in [label for label in LABELS if label in row.turns]:
        chains = "".join(
            f'<div class="chain" data-sample="{sample}">{"".join(_turn(turn) for turn in turns) or DASH}</div>'
            for sample, turns in enumerate(row.turns[label])
        )
        gains = "".join(_match(match, ("first", "last")) for match in row.gain.get(label, []))
        sides.append(
            f'<div class="side chains" data-policy="{label}"><h3>{label}: each episode, first painting to last</h3>'
            f'{chains}<ol class="matches gain-matches">{gains}</ol></div>'
        )
    return f'<div class="sides revisions">{"".join(sides)}</div>'


def _turn(turn: Turn) -> str:
    critique = f'<p class="critique">{_e(turn.critique)}</p>' if turn.critique else ""
    figure = _painting(turn).replace('<figure class="painting"', f'<figure class="painting turn" data-turn="{turn.turn}"', 1)
    return figure.replace("</figcaption>", f"{critique}</figcaption>", 1)


def _painting(painting: Painting) -> str:
    status = f'<span class="status" data-status="{_e(painting.status)}">{_e(painting.status)}</span>'
    violations = (
        '<ul class="violations">' + "".join(f'<li class="violation">{_e(v)}</li>' for v in painting.violations) + "</ul>"
        if painting.violations
        else ""
    )
    failure = f'<div class="failure">{_e(painting.failure)}</div>' if painting.failure else ""
    if painting.png:
        picture = (
            f'<a href="{_src(painting.png)}"><img src="{_src(painting.png)}" alt="sample {painting.sample}" loading="eager"></a>'
        )
    else:
        picture = f'<div class="missing">{status}{violations}{failure}</div>'
    terms = ", ".join(f"{_e(name)} {_num(value)}" for name, value in painting.reward.items())
    code = f' · <a class="code" href="{_src(painting.js)}">code</a>' if painting.js else ""
    caption = f"sample {painting.sample} · seed {painting.seed} · {status}{code}"
    if isinstance(painting, Turn):
        caption = f"turn {painting.turn} · {caption}"
    if terms:
        caption += f'<div class="terms">{terms}</div>'
    if painting.png:
        caption += violations + failure
    return (
        f'<figure class="painting" data-sample="{painting.sample}" data-status="{_e(painting.status)}">'
        f"{picture}<figcaption>{caption}</figcaption></figure>"
    )


def _match(match: Match, sides: tuple[str, str] = ("A", "B")) -> str:
    """`sides`: what A and B are in this comparison: the policies, or an episode's first painting and its last."""
    pair = f"sample {match.sample}" if match.b_sample == match.sample else f"A sample {match.sample} vs B sample {match.b_sample}"
    verdicts = "".join(
        _verdict(order, shown_first, verdict, sides)
        for order, shown_first, verdict in (("a_first", "A", match.a_first), ("b_first", "B", match.b_first))
    )
    outcome = OUTCOME_TEXT.get(match.outcome, match.outcome)
    if sides != ("A", "B"):
        outcome = GAIN_TEXT.get(match.outcome, match.outcome)
    return (
        f'<li class="match" data-sample="{match.sample}" data-b-sample="{match.b_sample}" data-outcome="{_e(match.outcome)}">'
        f'<span class="pair">{pair}</span>: <span class="outcome" data-outcome="{_e(match.outcome)}">'
        f"{_e(outcome)}</span>"
        f'<span class="why">{_e(_said(match.why, sides))}</span><div class="verdicts">{verdicts}</div></li>'
    )


def _said(why: str, sides: tuple[str, str]) -> str:
    """A match's reason in the words of its sides ("B preferred in both orders" -> "last preferred ...")."""
    if sides == ("A", "B"):
        return why
    return why.replace("A preferred", f"{sides[0]} preferred").replace("B preferred", f"{sides[1]} preferred")


def _verdict(order: str, shown_first: str, verdict, sides: tuple[str, str] = ("A", "B")) -> str:
    named = dict(zip(("A", "B"), sides, strict=True))
    heading = f"{named[shown_first]} shown first"
    if verdict is None:
        return f'<div class="verdict" data-order="{order}"><strong>{_e(heading)}</strong>: no verdict</div>'
    # Painting A is the one shown first: with B shown first, "A" is policy B's painting.
    other = "B" if shown_first == "A" else "A"
    policy = shown_first if verdict.winner == "A" else other
    winner = f"policy {policy}" if sides == ("A", "B") else f"the {named[policy]} painting"
    return (
        f'<div class="verdict" data-order="{order}" data-winner="{policy}"><strong>{_e(heading)}</strong>: '
        f'picked painting {_e(verdict.winner)} (<span class="winner">{_e(winner)}</span>)'
        f'<p class="reason">{_e(verdict.reason)}</p></div>'
    )

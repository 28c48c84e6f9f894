"""`watercolour eval --a STARTING_POINT --b TRAINED --env-url URL`: is B a better painter than A on subjects
neither trained on, in a judge's eyes, and is it still varied? (docs/evaluation.md)"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from watercolour_shared.render_wire import MAX_REVISIONS
from watercolour_shared.run_dir.evaluation import DEFAULT_PAIRS, EVAL_DIR, PAIRS, HeadToHead
from watercolour_shared.run_dir.layout import PLAN
from watercolour_shared.sampling import add_sampling_arguments, flags_of
from watercolour_shared.subjects import DEFAULT_SUBJECT, EVAL_SUBJECTS_FILE, SubjectsError, SubjectSet, load_subjects
from watercolour_studio.eval.policies import FilmPolicy, PolicyError, open_policy, policy_samplings
from watercolour_studio.exit_codes import EXIT_ERROR, EXIT_FAILED, EXIT_OK
from watercolour_studio.judges import add_judge_arguments, judge_from

POLICY_HELP = "a model or adapter folder, a run directory (its saved weights), or an OpenAI-compatible endpoint URL#MODEL"


def add_eval_command(commands) -> None:
    parser = commands.add_parser("eval", help="policy B against policy A as painters, on held-out subjects")
    parser.add_argument("--a", required=True, help=f"the starting point: {POLICY_HELP}")
    parser.add_argument("--b", required=True, help=f"the policy measured against A: {POLICY_HELP}")
    parser.add_argument("--base-model", help="the base model of an adapter, when its adapter_config.json does not say")
    parser.add_argument("--trained-on", action="append", default=[], help="a subject the policies trained on (repeat)")
    parser.add_argument(
        "--out", type=Path, help="the eval folder (eval.json, index.html, the paintings); default: B's run's eval/"
    )
    parser.add_argument("--expect-better", action="store_true", help="exit 1 unless B's win rate interval clears 50%%")
    parser.add_argument(
        "--revisions",
        type=revision_count,
        default=0,
        help="paint each sample as an episode of N revisions, each after the environment's critique, and measure each "
        "policy's last painting against its first (needs the environment's client, watercolour-env); default 0",
    )
    add_measure_arguments(parser, "as the run sampled (a run directory's run.json: B's, or A's)")
    parser.set_defaults(run=_eval)


def add_measure_arguments(parser: argparse.ArgumentParser, sampled_as: str) -> None:
    """How a head-to-head is measured, for `eval` and for `curve`, which runs one per checkpoint: the environment,
    the held-out subjects, samples and seed, the sampling, the pairs and the judge."""
    parser.add_argument("--env-url", required=True, help="the running environment that gates, renders and scores")
    parser.add_argument("--subjects", type=Path, help=f"held-out subjects, one per line (default {EVAL_SUBJECTS_FILE.name})")
    parser.add_argument("--samples", type=sample_count, default=4, help="paintings per subject and policy")
    parser.add_argument("--seed", type=int, default=0, help="sample k of subject i is seeded SEED + 1000 i + k")
    add_sampling_arguments(parser, sampled_as)
    parser.add_argument(
        "--pairs",
        choices=PAIRS,
        default=DEFAULT_PAIRS,
        help="which paintings of a subject the judge compares: matched (A's sample k against B's sample k) or all (every "
        "A painting against every B painting: a win rate that does not hang on which samples met, from the same "
        "paintings, for SAMPLES times the judge calls, which cost money on the HF router)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_judge_arguments(parser)


def held_out_subjects(chosen: Path | None, trained_on: list[str]) -> SubjectSet:
    """The subjects asked for (`--subjects`, else the held-out set), refused when the policies trained on one, or on
    the default subject."""
    return load_subjects(chosen or EVAL_SUBJECTS_FILE).held_out_from([DEFAULT_SUBJECT, *trained_on])


def sample_count(text: str) -> int:
    if int(text) < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return int(text)


def revision_count(text: str) -> int:
    if not 0 <= int(text) <= MAX_REVISIONS:
        raise argparse.ArgumentTypeError(f"revisions are from 0 to {MAX_REVISIONS}")
    return int(text)


def _film_subjects(films: list[FilmPolicy], chosen: Path | None) -> SubjectSet:
    """A run's paintings are of the subjects it trained on: the ones every film painted, in the first one's order."""
    if chosen is not None:
        raise SubjectsError("--subjects does not apply to RUN_DIR@STEPS: a run's paintings are of its own subjects")
    common = [subject for subject in films[0].subjects if all(subject in film.replies for film in films)]
    if not common:
        raise SubjectsError("the films share no subject to compare")
    return SubjectSet(f"painted by {' and '.join(film.source for film in films)}", tuple(common))


def _run_eval_folder(b: str) -> Path:
    if not (Path(b) / PLAN).is_file():
        raise PolicyError("--out is needed unless B is a run directory (its eval goes into its eval/)")
    return Path(b) / EVAL_DIR


def _eval(args: argparse.Namespace) -> int:
    from watercolour_studio.eval.runner import EvalError, EvalPlan, run

    token = os.environ.get("HF_TOKEN")
    specs = {"A": args.a, "B": args.b}
    try:
        args.out = args.out or _run_eval_folder(args.b)
        samplings, notes = policy_samplings(specs, flags_of(args))
        for note in notes:
            print(f"watercolour eval: {note}", file=sys.stderr)
        policies = {label: open_policy(spec, samplings[label], args.base_model, token) for label, spec in specs.items()}
        films = [policy for policy in policies.values() if isinstance(policy, FilmPolicy)]
        if films and args.revisions:
            raise PolicyError("--revisions needs policies that write: a run's paintings (RUN_DIR@STEPS) cannot revise")
        if films:
            subjects = _film_subjects(films, args.subjects)
        else:
            subjects = held_out_subjects(args.subjects, [*args.trained_on, *(s for p in policies.values() for s in p.trained_on)])
        judge = judge_from(args)
        plan = EvalPlan(
            policies, subjects, args.samples, args.seed, args.env_url, judge, args.out, token, not args.quiet, pairs=args.pairs
        )
        plan.held_out, plan.revisions = not films, args.revisions
        evaluation = run(plan)
    except (SubjectsError, PolicyError, EvalError) as error:
        print(f"watercolour eval: {error}", file=sys.stderr)
        return EXIT_ERROR
    match = evaluation.head_to_head
    if evaluation.revisions:
        turns = f"{evaluation.revisions} revision{'s' if evaluation.revisions > 1 else ''}"
        print(f"revision gain ({turns}; each episode's last painting against its own first):")
        for label, gain in evaluation.revision_gain.items():
            print(f"  {label}: {_rate(gain)}")
        print(f"B against A ({evaluation.pairs} pairs, last paintings): {_rate(match)}")
    else:
        print(f"B against A ({evaluation.pairs} pairs): {_rate(match)}")
    for label, summary in evaluation.policies.items():
        print(f"{label}: {summary.paintings} paintings scored, {summary.unavailable} left out (no answer, never scored)")
    if evaluation.diversity_ratio is not None:
        print(f"diversity: B's paintings vary {evaluation.diversity_ratio:.0%} as much as A's")
    for warning in evaluation.warnings:
        print(f"warning: {warning}")
    print(f"written to {args.out / 'index.html'}")
    return EXIT_FAILED if args.expect_better and not match.better else EXIT_OK


def _rate(match: HeadToHead) -> str:
    rate = match.win_rate
    interval = f"[{rate.low:.0%}, {rate.high:.0%}]" if rate.low is not None else "[no interval]"
    shown = f"{rate.mean:.0%} {interval}" if rate.mean is not None else "none (nothing compared)"
    counts = f"{match.wins} won, {match.losses} lost, {match.ties} tied, {match.left_out} left out"
    return f"win rate {shown}, {counts}"

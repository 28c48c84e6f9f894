"""`watercolour curve RUN_DIR`: the run's held-out curve (docs/evaluation.md, "Reading the curve").

Each saved checkpoint not yet on the curve is evaluated by `watercolour eval`'s own machinery: the checkpoint as B
against the run's starting policy (run.json's `model`) as A, on held-out subjects, both sampling as the run sampled.
Its eval folder goes to `curve/checkpoint-N/` and its head-to-head onto `curve/curve.json`. A rerun evaluates only
what is missing; the trainer's `--eval_steps` runs it with `--checkpoint` for the checkpoints it saves.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
from pathlib import Path

from watercolour_shared.run_dir import RunReader
from watercolour_shared.run_dir.curve import Curve, append_point, curve_path, point_folder, read_curve, refuse_unlike
from watercolour_shared.run_dir.evaluation import replies_file
from watercolour_shared.run_dir.layout import CHECKPOINTS, PLAN
from watercolour_shared.sampling import flags_of
from watercolour_shared.subjects import SubjectsError
from watercolour_studio.checks.held_out import best_point, describe_point, name_best
from watercolour_studio.eval.command import add_measure_arguments, held_out_subjects
from watercolour_studio.eval.policies import LocalPolicy, PolicyError, open_policy, policy_samplings
from watercolour_studio.exit_codes import EXIT_ERROR, EXIT_OK
from watercolour_studio.judges import judge_from


class CurveError(ValueError):
    """What stops the curve before any evaluation (no run.json, no such checkpoint, a curve measured otherwise)."""


def add_curve_command(commands) -> None:
    parser = commands.add_parser("curve", help="the held-out curve: each saved checkpoint against the run's starting policy")
    parser.add_argument("run_dir", type=Path, help="a run directory whose trainer saved checkpoints (checkpoints/checkpoint-N)")
    parser.add_argument("--checkpoint", help="only this saved checkpoint (checkpoint-N); default: every one not on the curve")
    add_measure_arguments(parser, "as the run sampled (its run.json)")
    parser.set_defaults(run=_curve)


def _curve(args: argparse.Namespace) -> int:
    from watercolour_studio.eval.runner import EvalError

    try:
        return asyncio.run(_draw(args))  # one event loop for every point: the judge's client lives in it
    except (CurveError, SubjectsError, PolicyError, EvalError) as error:
        print(f"watercolour curve: {error}", file=sys.stderr)
        return EXIT_ERROR


async def _draw(args: argparse.Namespace) -> int:
    from watercolour_studio.eval.runner import EvalPlan, evaluate, subject_info

    run = RunReader(args.run_dir)
    plan = run.plan()
    if plan is None:
        raise CurveError(f"{run.root}: no readable {PLAN}, so no starting policy to measure against: not a run directory")
    curve = _curve_so_far(run.root)
    on_curve = {point.step for point in curve.points} if curve else set()
    missing = {}
    for step, folder in _asked_for(run, args.checkpoint).items():
        if step in on_curve:
            print(f"{folder.relative_to(run.root)}: already on the curve")
        else:
            missing[step] = folder
    if not missing:
        return EXIT_OK
    token = os.environ.get("HF_TOKEN")
    samplings, notes = policy_samplings({"A": plan.model, "B": str(run.root)}, flags_of(args))
    for note in notes:
        print(f"watercolour curve: {note}", file=sys.stderr)
    subjects = held_out_subjects(args.subjects, plan.subjects)
    judge = judge_from(args)
    baseline = open_policy(plan.model, samplings["A"], token=token).source
    measured = {
        "subjects": subject_info(subjects),
        "samples": args.samples,
        "seed": args.seed,
        "judge": judge.name,
        "pairs": args.pairs,
    }
    try:  # before any evaluation, not after the first: a point the curve would refuse is not worth painting
        refuse_unlike(curve, baseline=baseline, **measured)
    except ValueError as error:
        raise CurveError(f"{curve_path(run.root)}: {error}") from None
    for step, folder in missing.items():
        checkpoint, out = str(folder.relative_to(run.root)), point_folder(run.root, folder.name)
        _reuse_starting_replies(run.root, curve, out)
        # A is opened again for each point: eval closes its policies when it ends.
        policies = {
            "A": open_policy(plan.model, samplings["A"], token=token),
            "B": LocalPolicy.from_path(folder, samplings["B"], plan.model, plan),
        }
        measure = EvalPlan(
            policies, subjects, args.samples, args.seed, args.env_url, judge, out, token, not args.quiet, pairs=args.pairs
        )
        curve = append_point(run.root, await evaluate(measure), step, checkpoint, out)
        point = next(point for point in curve.points if point.step == step)
        print(f"{describe_point(point)}; {out / 'index.html'}")
    best = best_point(curve.points)
    print(f"{name_best(best) if best else 'no checkpoint has a win rate yet'}; the curve: {curve_path(run.root)}")
    return EXIT_OK


def _curve_so_far(run_dir: Path) -> Curve | None:
    try:
        return read_curve(run_dir)
    except ValueError as error:  # pydantic's ValidationError: a file that does not fit the record
        raise CurveError(f"{curve_path(run_dir)} does not fit the curve's record: {str(error).splitlines()[0]}") from None


def _asked_for(run: RunReader, name: str | None) -> dict[int, Path]:
    """The saved checkpoints to put on the curve, by step: the one named, or all."""
    saved = run.saved_checkpoints()
    if name is None:
        if not saved:
            raise CurveError(f"{run.root}: no saved checkpoint in {CHECKPOINTS}/ (the trainer saves one every --save_steps)")
        return saved
    named = {step: folder for step, folder in saved.items() if folder.name == Path(name).name}
    if not named:
        raise CurveError(f"{run.root}: no saved checkpoint {name} in {CHECKPOINTS}/")
    return named


def _reuse_starting_replies(run_dir: Path, curve: Curve | None, out: Path) -> None:
    """A's replies are the same at every point (the curve fixes A, the subjects, samples and seed, and each sample is
    seeded), so a new point starts from an earlier point's and A writes none of them again."""
    earlier = next((run_dir / point.eval for point in curve.points if point.eval), None) if curve else None
    if earlier is None or not replies_file(earlier, "A").is_file() or replies_file(out, "A").exists():
        return
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(replies_file(earlier, "A"), replies_file(out, "A"))

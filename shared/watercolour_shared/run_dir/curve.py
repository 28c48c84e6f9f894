"""`curve/curve.json`: a run's held-out curve, each saved checkpoint against the starting policy
(docs/run-directory.md, "The held-out curve"; docs/evaluation.md, "Reading the curve").

A point is one `watercolour eval` of a checkpoint (B) against the run's starting policy (A): its step, the
checkpoint, and eval.json's head-to-head (B's win rate with its interval). Every point of a curve is measured
the same way (the same starting policy, subject set, samples, seed, pairs and judge, held once in the curve), so its
points can be compared; a point measured otherwise is refused. One writer (`append_point`, which adds one
evaluation as a point; a point of a step already there replaces it) and one reader (`read_curve`): `watercolour
curve` writes it, `check-run`'s "held-out curve" and the gallery read it.
"""

from __future__ import annotations

import fcntl
import json
from contextlib import contextmanager
from pathlib import Path

from pydantic import BaseModel, Field, field_validator

from watercolour_shared.run_dir.evaluation import DEFAULT_PAIRS, Evaluation, HeadToHead, Pairs, SubjectSetInfo
from watercolour_shared.run_dir.layout import CURVE, CURVE_DIR

CURVE_VERSION = 1


def curve_path(run_dir: Path) -> Path:
    return Path(run_dir) / CURVE


def point_folder(run_dir: Path, checkpoint: str) -> Path:
    """Where a point's eval folder goes: `curve/checkpoint-N/`, named as the checkpoint's own folder."""
    return Path(run_dir) / CURVE_DIR / Path(checkpoint).name


class CurvePoint(BaseModel):
    step: int = Field(description="the optimisation step the checkpoint was saved at")
    checkpoint: str = Field(description="the checkpoint evaluated: its folder relative to the run directory, or as named")
    created: str = Field(description="when its evaluation was written (eval.json's `created`)")
    head_to_head: HeadToHead = Field(description="this checkpoint (B) against the starting policy (A), as eval.json has it")
    eval: str | None = Field(None, description="its eval folder relative to the run directory, when kept there")


class Curve(BaseModel):
    version: int = CURVE_VERSION
    baseline: str = Field(description="the starting policy every point is measured against (eval.json's A source)")
    subjects: SubjectSetInfo
    samples: int
    seed: int
    judge: str
    pairs: Pairs = Field(DEFAULT_PAIRS, description="which paintings each point compared (eval.json's); before it: matched")
    points: list[CurvePoint] = Field(description="one per step, in step order")

    @field_validator("points")
    @classmethod
    def _in_step_order(cls, points: list[CurvePoint]) -> list[CurvePoint]:
        return sorted(points, key=lambda point: point.step)  # a hand-edited file reads as the writer writes it


def read_curve(run_dir: Path) -> Curve | None:
    """None when the run has no curve; a file that does not fit the record raises (pydantic's ValidationError)."""
    path = curve_path(run_dir)
    return Curve.model_validate_json(path.read_text()) if path.is_file() else None


def append_point(run_dir: Path, evaluation: Evaluation, step: int, checkpoint: str, eval_folder: Path | None = None) -> Curve:
    """Add one evaluation of a checkpoint against the starting policy to the run's curve, written whole.

    The first point fixes what the curve measures against; a later evaluation that differs (another starting
    policy, subject set, sample count, seed, judge or pairs) raises ValueError. A step already on the curve is replaced.
    """
    measured = {
        "baseline": evaluation.policies["A"].source,
        "subjects": evaluation.subjects,
        "samples": evaluation.samples,
        "seed": evaluation.seed,
        "judge": evaluation.judge,
        "pairs": evaluation.pairs,
    }
    with _locked(run_dir):
        curve = read_curve(run_dir)
        refuse_unlike(curve, **measured)
        curve = curve or Curve(**measured, points=[])
        point = _point(evaluation, step, checkpoint, eval_folder, run_dir)
        points = sorted([p for p in curve.points if p.step != step] + [point], key=lambda p: p.step)
        curve = curve.model_copy(update={"points": points})
        from watercolour_shared.run_dir.writer import atomic_write

        atomic_write(curve_path(run_dir), json.dumps(curve.model_dump(mode="json"), indent=1).encode())
    return curve


def refuse_unlike(
    curve: Curve | None, *, baseline: str, subjects: SubjectSetInfo, samples: int, seed: int, judge: str, pairs: Pairs
) -> None:
    """ValueError, naming what differs, when the run has a curve and it is not measured this way (so a command can
    refuse before it spends an evaluation on a point the curve would not take). Pairs too: the two modes
    measure a point's win rate from different comparisons, so a curve of both would draw unlike points as alike."""
    measured = {"baseline": baseline, "subjects": subjects, "samples": samples, "seed": seed, "judge": judge, "pairs": pairs}
    differs = [name for name, value in measured.items() if curve is not None and getattr(curve, name) != value]
    if differs:
        raise ValueError(f"this evaluation is not measured as the curve is ({', '.join(differs)} differ): start a new curve")


def _point(evaluation: Evaluation, step: int, checkpoint: str, eval_folder: Path | None, run_dir: Path) -> CurvePoint:
    return CurvePoint(
        step=step,
        checkpoint=checkpoint,
        created=evaluation.created,
        head_to_head=evaluation.head_to_head,
        eval=_relative(eval_folder, run_dir) if eval_folder else None,
    )


@contextmanager
def _locked(run_dir: Path):
    """One writer at a time: two evaluations of a run that end together (the trainer's, one run by hand) would each
    write the curve they read, without the other's point."""
    lock = curve_path(run_dir).with_name(".curve.lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        yield


def _relative(folder: Path, run_dir: Path) -> str:
    folder, root = Path(folder).resolve(), Path(run_dir).resolve()
    return str(folder.relative_to(root)) if folder.is_relative_to(root) else str(folder)

"""The trainer's commands for the `watercolour` CLI."""

from __future__ import annotations

from watercolour_shared.sampling import add_sampling_arguments
from watercolour_shared.subjects import DEFAULT_SUBJECT


def add_commands(commands) -> None:
    paint = commands.add_parser("paint", help="load a base model and its adapter, and paint through an environment")
    paint.add_argument("--model", required=True, help="the base model (Hub id or folder)")
    paint.add_argument("--adapter", help="a trained adapter (folder or Hub repo); none paints with the base model")
    paint.add_argument("--env-url", required=True)
    paint.add_argument("--count", type=int, default=4)
    paint.add_argument("--out", default="paintings")
    paint.add_argument("--subject", default=DEFAULT_SUBJECT)
    add_sampling_arguments(paint, "as the run sampled whose adapter or model this is (its run.json)")
    paint.add_argument("--seed", type=int, default=0)
    paint.add_argument("--bf16", action="store_true")
    paint.set_defaults(run=_paint)


def _paint(args) -> int:
    from watercolour_trainer.paint_command import run  # torch loads only when painting

    return run(args)

"""Which look each rollout chose. The generator writes a sketch's look (zoom, wash, glaze: sketchgen/looks.py)
in the first lines of `draw()`, and the warm start learns those lines with every combination of levels, so
the mean level a step's rollouts chose shows what GRPO is learning, apart from the noise in the reward."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from watercolour_harness.sketchgen.looks import QUALITIES, Look, look_of
from watercolour_shared.run_dir import RunReader


def step_looks(run: RunReader, step: int) -> list[Look | None]:
    """The look of each of the step's rollouts; None where the reply never wrote the look line."""
    return [look_of(rollout.record.reply) for rollout in run.rollouts(step)]


def mean_look(looks: Sequence[Look | None]) -> dict[str, float | None]:
    """The mean level of each quality over the looks that were written."""
    written = [look for look in looks if look is not None]
    return {name: statistics.fmean(getattr(look, name) for look in written) if written else None for name in QUALITIES}


def tally(looks: Sequence[Look | None]) -> str:
    """`zoom 1.50 wash 1.04 glaze 0.70`: the step's mean levels."""
    means = mean_look(looks)
    return " ".join(f"{name} {'n/a' if value is None else f'{value:.2f}'}" for name, value in means.items())

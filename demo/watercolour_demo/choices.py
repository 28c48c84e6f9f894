"""Which composition each rollout chose. The generator names it in the sketch's first line
("// A peach hibiscus in loose watercolour: close-up, peach palette."), and the warm start learns that line, so
the share of a step's rollouts that chose each composition shows what GRPO is learning, apart from the
noise in the reward."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from watercolour_demo.sketchgen import TITLE
from watercolour_shared.run_dir import RunReader

# The rewards' favourite of the warm start's compositions: its zoom line paints about three times the sheet, and how
# much of the sheet is painted moves the offline judge and the heuristic scorer most (in the tiny
# policy's sketches the painted fraction and the reward correlate at 0.89). A rising share of it is GRPO
# learning the choice the reward pays for.
WATCHED = "close-up"
UNNAMED = "unnamed"  # no first line the generator would write: the reply went astray before choosing


def composition(reply: str) -> str:
    title = TITLE.search(reply)
    return title["layout"] if title else UNNAMED


def step_choices(run: RunReader, step: int) -> Counter:
    """How many of the step's rollouts chose each composition."""
    return Counter(composition(rollout.record.reply) for rollout in run.rollouts(step))


def share(choices: Mapping[str, int], name: str) -> float | None:
    total = sum(choices.values())
    return choices.get(name, 0) / total if total else None


def tally(choices: Mapping[str, int]) -> str:
    """`close-up 3/8`: how many of the step's rollouts chose the watched composition."""
    return f"{WATCHED} {choices.get(WATCHED, 0)}/{sum(choices.values())}"

"""Which palette each rollout chose. The generator names it in the sketch's first line
("// A hibiscus in loose watercolour: single, lemon palette."), and the warm start learns that line, so the
share of a step's rollouts that chose each palette shows what GRPO is learning, apart from the noise in
the reward."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from watercolour_demo.sketchgen import TITLE
from watercolour_trainer.film import RunDirectory

# The rewards' favourite of the warm start's palettes (lighter paint: the offline judge's washes, the
# heuristic scorer's translucency): a rising share of it is GRPO learning the choice the reward pays for.
WATCHED = "lemon"
UNNAMED = "unnamed"  # no first line the generator would write: the reply went astray before choosing


def palette(reply: str) -> str:
    title = TITLE.search(reply)
    return title["palette"] if title else UNNAMED


def step_choices(run_dir: Path, step: int) -> Counter:
    """How many of the step's rollouts chose each palette."""
    return Counter(palette(rollout["reply"]) for rollout in RunDirectory(run_dir).rollouts(step))


def share(choices: Counter, name: str) -> float | None:
    total = sum(choices.values())
    return choices[name] / total if total else None

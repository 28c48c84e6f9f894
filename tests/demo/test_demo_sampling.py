"""The demo's GRPO samples as its warm-start check and its closing evaluation do: the trainer command, read by the
real launch-script parser, carries the same top-k and top-p as the eval command (TRL's defaults, the whole tail,
made half the tiny policy's rollouts fail the gate)."""

from __future__ import annotations

from pathlib import Path

from watercolour_demo.evaluation import ClosingEval, eval_command
from watercolour_demo.training import TOP_K, TOP_P, GrpoSettings, trainer_command
from watercolour_shared.reward import DEFAULT_MIX, format_weights, preset
from watercolour_trainer import config

SETTINGS = GrpoSettings(
    subjects=("a peach hibiscus",),
    steps=2,
    group_size=4,
    max_completion_length=64,
    lr=1e-4,
    weights=format_weights(preset(DEFAULT_MIX)),
)


def test_grpo_samples_with_the_demos_top_k_and_top_p(tmp_path):
    command = trainer_command("http://127.0.0.1:1", Path("model"), tmp_path, SETTINGS)
    parsed = config.parse(command[2:])  # after the interpreter and the script
    assert (parsed.top_k, parsed.top_p, parsed.temperature) == (TOP_K, TOP_P, SETTINGS.temperature)

    evaluation = eval_command("http://127.0.0.1:1", Path("model"), tmp_path, SETTINGS, ClosingEval())
    assert evaluation[evaluation.index("--top-k") + 1] == str(TOP_K)
    assert evaluation[evaluation.index("--top-p") + 1] == str(TOP_P)

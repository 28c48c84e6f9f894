"""The demo's GRPO samples as its warm-start check and its closing evaluation do: the trainer command, read by the
real launch-script parser, carries the demo's sampling (shared's top-k and top-p: TRL's defaults, the whole tail,
made half the tiny policy's rollouts fail the gate), which the run records; the eval command carries none, so
`watercolour eval` samples both policies as the run sampled (tests/test_sampling_contract.py)."""

from __future__ import annotations

from pathlib import Path

from watercolour_demo.evaluation import ClosingEval, eval_command
from watercolour_demo.training import GrpoSettings, trainer_command
from watercolour_shared.reward import DEFAULT_MIX, format_weights, preset
from watercolour_shared.sampling import Sampling
from watercolour_trainer import config

SETTINGS = GrpoSettings(
    subjects=("a peach hibiscus",),
    steps=2,
    group_size=4,
    max_completion_length=64,
    lr=1e-4,
    weights=format_weights(preset(DEFAULT_MIX)),
    temperature=0.7,
)


def test_grpo_samples_with_the_demos_sampling_and_the_eval_reads_it_from_the_run(tmp_path):
    command = trainer_command("http://127.0.0.1:1", Path("model"), tmp_path, SETTINGS)
    parsed = config.parse(command[2:])  # after the interpreter and the script
    assert Sampling.of_config(parsed) == SETTINGS.sampling == Sampling(temperature=0.7, max_new_tokens=64)

    evaluation = eval_command("http://127.0.0.1:1", Path("model"), tmp_path, SETTINGS, ClosingEval())
    assert not {"--temperature", "--top-k", "--top-p", "--max-new-tokens"} & set(evaluation)
    assert evaluation[evaluation.index("--pairs") + 1] == "all"  # the offline judge is local: every pair is cheap

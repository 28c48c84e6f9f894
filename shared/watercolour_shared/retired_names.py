"""Old names, all retired at once (issue 46) rather than read with a warning until a date: each is read nowhere, and
where a user would still write one it is refused with the name that replaced it. A rename adds its old name here and
keeps no alias: tests/test_retired_names.py fails on an old name read anywhere else.
"""

from __future__ import annotations

import argparse

# The trainer's flags from before TRL's names; a recipe key is the same name without its dashes.
TRAINER_FLAGS = {
    "--recipe": "--config",
    "--model": "--model_name_or_path",
    "--subject": "--subjects",
    "--lr": "--learning_rate",
    "--lr-scheduler": "--lr_scheduler_type",
    "--steps": "--max_steps",
    "--per-device-batch-size": "--per_device_train_batch_size",
    "--lora": "--use_peft",
    "--lora-targets": "--lora_target_modules",
    "--all-linear": "--lora_target_modules all-linear",
    "--run-tag": "--run_name",
    "--run-dir": "--output_dir",
    "--out": "--hub_model_id",
    "--resume": "--resume_from_checkpoint last",
    "--vllm-server-url": "--vllm_server_base_url",
}
# `watercolour train-job`'s.
TRAIN_JOB_FLAGS = {"--mix": "--recipe"}
# The environment service's variables (the per-term weights, and the recipe's name for the HPSv3 one).
VARIABLES = {
    **{f"WATERCOLOUR_{term}_WEIGHT": "WATERCOLOUR_WEIGHTS" for term in ("GATE", "LENGTH", "JUDGE", "HPS", "QUALITY")},
    "WATERCOLOUR_JUDGE_MIX": "WATERCOLOUR_JUDGE_TIER_MIX",
}
# An episode's options (reset, /evaluate): a preset's name, where the trainer now sends the weights themselves.
EPISODE_OPTIONS = {"mix": "weights"}


def refusal(old: str, new: str) -> str:
    """What every part says to an old name."""
    return f"{old} was retired: use {new}"


class _Refused(argparse.Action):
    def __call__(self, parser, namespace, values, option_string=None):
        parser.error(refusal(option_string, self.const))


def refuse_flags(parser: argparse.ArgumentParser, flags: dict[str, str]) -> None:
    """Each old flag refused with its replacement, where argparse alone would call it unrecognised; not in --help."""
    for old, new in flags.items():
        parser.add_argument(old, action=_Refused, const=new, nargs="*", default=argparse.SUPPRESS, help=argparse.SUPPRESS)

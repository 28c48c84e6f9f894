"""The launch flags and recipe keys of the release before TRL's names, read with a warning naming the new one.

They go on OLD_NAMES_UNTIL (trainer/README.md says so): then this file, and its call in config.parse(), go too.
"""

from __future__ import annotations

import argparse
import sys

OLD_NAMES_UNTIL = "2027-03-01"
VLLM_MODES = ("colocate", "server")  # `--use-vllm MODE`'s values

# An old name and the field that now holds its value.
RENAMED = {
    "recipe": "config",
    "model": "model_name_or_path",
    "subject": "subjects",
    "lr": "learning_rate",
    "lr-scheduler": "lr_scheduler_type",
    "steps": "max_steps",
    "per-device-batch-size": "per_device_train_batch_size",
    "lora": "use_peft",
    "lora-targets": "lora_target_modules",
    "run-tag": "run_name",
    "run-dir": "output_dir",
    "out": "hub_model_id",
    "vllm-server-url": "vllm_server_base_url",
}
# Old switches that now set a field to a value.
SWITCHES = {
    "all-linear": ("lora_target_modules", ["all-linear"]),
    "resume": ("resume_from_checkpoint", "last"),
}


def warn(old: str, new: str) -> None:
    print(f"warning: {old} is now {new}; the old name is read until {OLD_NAMES_UNTIL}", file=sys.stderr)


def recipe_entry(name: str, value, fields: set[str]) -> dict:
    """One recipe key as the config names it: an old key, or a field spelt with hyphens, becomes the field."""
    if name in SWITCHES:
        new, new_value = SWITCHES[name]
        if value is not True:
            raise ValueError(f"{name}: the old switch only took `true` (write {new})")
        warn(f"recipe key {name!r}", f"{new}: {new_value}")
        return {new: new_value}
    if name == "use-vllm":
        warn("recipe key 'use-vllm'", "use_vllm: true and vllm_mode")
        return {"use_vllm": True, "vllm_mode": value}
    if name == "lora-targets" and isinstance(value, str):
        value = [part.strip() for part in value.split(",") if part.strip()]
    new = RENAMED.get(name) or (name.replace("-", "_") if "-" in name and name.replace("-", "_") in fields else None)
    if new is None:
        return {name: value}
    warn(f"recipe key {name!r}", repr(new))
    return {new: value}


def translate(argv: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """The command line in today's names: old flags renamed, each with a warning."""
    known = {flag: action for action in parser._actions for flag in action.option_strings}
    out: list[str] = []
    index = 0
    while index < len(argv):
        arg = argv[index]
        flag, inline = (arg.split("=", 1) + [None])[:2] if arg.startswith("--") else (arg, None)
        values = [inline] if inline is not None else []
        if not arg.startswith("--") or (flag in known and not _old_form(flag, known[flag], argv, index)):
            out.append(arg)
            index += 1
            continue
        if inline is None:
            while index + 1 + len(values) < len(argv) and not argv[index + 1 + len(values)].startswith("--"):
                values.append(argv[index + 1 + len(values)])
        index += 1 + (len(values) if inline is None else 0)
        out += _renamed(flag[2:], values, known)
    return out


def _old_form(flag: str, action: argparse.Action, argv: list[str], index: int) -> bool:
    """A flag of today's spelled as before: an optional switch (`--compiled_generation`) alone, which now takes
    true or false; or `--use-vllm MODE`, whose spelling is now use_vllm's, a switch."""
    if "=" in argv[index]:
        return flag == "--use-vllm" and argv[index].split("=", 1)[1] in VLLM_MODES
    alone = index + 1 >= len(argv) or argv[index + 1].startswith("--")
    if flag == "--use-vllm":
        return not alone and argv[index + 1] in VLLM_MODES
    return _takes_a_bool(action) and action.nargs is None and alone


def _takes_a_bool(action: argparse.Action) -> bool:
    """A boolean field's flag: the parser reads its value as true or false."""
    try:
        return action.type is not None and action.type("true") is True
    except (TypeError, ValueError):
        return False


def _renamed(name: str, values: list[str], known: dict[str, argparse.Action]) -> list[str]:
    if f"--{name}" in known and not values:  # an optional switch given alone
        warn(f"--{name} alone", f"--{name} true")
        return [f"--{name}", "true"]
    if name in SWITCHES:
        new, value = SWITCHES[name]
        words = value if isinstance(value, list) else [value]
        warn(f"--{name}", f"--{new} {' '.join(words)}")
        return [f"--{new}", *words, *values]
    if name == "use-vllm" and values:
        warn(f"--use-vllm {values[0]}", f"--use_vllm true --vllm_mode {values[0]}")
        return ["--use_vllm", "true", "--vllm_mode", values[0], *values[1:]]
    if name == "lora-targets" and values:
        values = [part.strip() for part in values[0].split(",") if part.strip()] + values[1:]
    if name in RENAMED:
        warn(f"--{name}", f"--{RENAMED[name]}")
        return [f"--{RENAMED[name]}", *values]
    negated = name.removeprefix("no-").removeprefix("no_")
    if negated != name:
        field_name = RENAMED.get(negated, negated.replace("-", "_"))
        if f"--{field_name}" in known and _takes_a_bool(known[f"--{field_name}"]):
            warn(f"--{name}", f"--{field_name} false")
            return [f"--{field_name}", "false", *values]
    return [f"--{name}", *values]  # unknown: the parser names it

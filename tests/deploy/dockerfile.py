"""A Dockerfile read into its build stages, for tests that check the images without a Docker engine."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Stage:
    name: str | None
    base: str
    instructions: list[tuple[str, str]] = field(default_factory=list)  # (KEYWORD, arguments)


def stages(path: Path) -> list[Stage]:
    """The stages, each FROM's `${ARG}` replaced by the default an ARG before the first FROM gives it."""
    found: list[Stage] = []
    defaults = from_arguments(path)
    for line in _logical_lines(path.read_text()):
        keyword, _, args = line.partition(" ")
        keyword, args = keyword.upper(), args.strip()
        if keyword == "FROM":
            words = [re.sub(r"\$\{(\w+)\}", lambda m: defaults[m[1]], word) for word in args.split()]
            found.append(Stage(words[2] if len(words) > 2 and words[1].upper() == "AS" else None, words[0]))
        elif found:  # an ARG before the first FROM only parameterises FROM lines
            found[-1].instructions.append((keyword, args))
    return found


def from_arguments(path: Path) -> dict[str, str]:
    """The ARGs declared before the first FROM, with their defaults."""
    found = {}
    for line in _logical_lines(path.read_text()):
        keyword, _, args = line.partition(" ")
        if keyword.upper() == "FROM":
            break
        if keyword.upper() == "ARG" and "=" in args:
            name, value = args.strip().split("=", 1)
            found[name] = value
    return found


def chain(all_stages: list[Stage], target: str | None = None) -> list[Stage]:
    """The stages a build of `target` (default: the last stage) runs, the first base first."""
    by_name = {stage.name: stage for stage in all_stages if stage.name}
    stage = by_name[target] if target else all_stages[-1]
    built = [stage]
    while stage.base in by_name:
        stage = by_name[stage.base]
        built.insert(0, stage)
    return built


def instructions(all_stages: list[Stage], target: str | None = None) -> list[tuple[str, str]]:
    return [instruction for stage in chain(all_stages, target) for instruction in stage.instructions]


def command(all_stages: list[Stage], target: str | None = None) -> list[str]:
    """The image's CMD as an argument list."""
    cmds = [args for keyword, args in instructions(all_stages, target) if keyword == "CMD"]
    return json.loads(cmds[-1]) if cmds[-1].startswith("[") else ["sh", "-c", cmds[-1]]


def copy_sources(all_stages: list[Stage], target: str | None = None) -> list[str]:
    """What COPY takes from the build context (not from other stages)."""
    sources = []
    for keyword, args in instructions(all_stages, target):
        words = shlex.split(args)
        if keyword == "COPY" and not any(word.startswith("--from") for word in words):
            sources.extend(word for word in words[:-1] if not word.startswith("--"))
    return sources


def environment(all_stages: list[Stage], target: str | None = None) -> dict[str, str]:
    """ENV in the KEY=VALUE form."""
    values = {}
    for keyword, args in instructions(all_stages, target):
        if keyword == "ENV":
            values.update(word.split("=", 1) for word in shlex.split(args))
    return values


def _logical_lines(text: str) -> list[str]:
    lines, pending = [], ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        lines.append(pending + line)
        pending = ""
    return lines

"""A recipe file (trainer/recipes/*.yaml): the config's fields by name, as TRL's `--config` reads them.

`extends: FILE` (relative to the recipe) takes another recipe's values first, so what several runs share is
written once; the recipe's own keys win, and a reward of its own (`mix` or `weights`) replaces all its base's. Every
key must be a field of the config: a typo is refused by name. `weights` may be a mapping by term.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import yaml

from watercolour_shared.retired_names import TRAINER_FLAGS, refusal

# TRL's section of environment variables, beside the fields.
ENV = "env"
WEIGHTS = "weights"
# The reward, said either way: weights win over a mix given with them, so a base's weights would beat a run's own
# mix, and a recipe's a command line's --mix, unless whoever says either says both.
REWARD = frozenset({"mix", WEIGHTS})


class RecipeError(ValueError):
    pass


def recipe_values(path: Path, fields: set[str]) -> dict:
    """The recipe's values by field name (`fields`: the config's), those of the files it extends first."""
    return _values(Path(path), fields, ())


def beneath(values: dict, given: Iterable[str]) -> dict:
    """What of `values` still counts under a layer that gives the names `given`: a layer that says anything about
    the reward says all of it; the layer's other values win one by one as they are applied."""
    return values if REWARD.isdisjoint(given) else {name: value for name, value in values.items() if name not in REWARD}


def _values(path: Path, fields: set[str], extended_by: tuple[Path, ...]) -> dict:
    try:
        recipe = yaml.safe_load(path.read_text())
    except yaml.YAMLError as error:
        raise RecipeError(f"{path}: not YAML ({error})") from None
    if not isinstance(recipe, dict):
        raise RecipeError(f"{path}: a recipe maps field names to values")
    base = recipe.pop("extends", None)
    for name, value in recipe.items():
        if value is None:
            raise RecipeError(f"{name} has no value")
        if name == ENV and not isinstance(value, dict):
            raise RecipeError(f"{ENV}: TRL's section of environment variables is a mapping")
        if name not in fields and name != ENV:
            raise RecipeError(_not_a_field(name, fields))
        if name == WEIGHTS and isinstance(value, dict):  # written by term: the flag's text, checked as the flag's is
            recipe[name] = ",".join(f"{term}={weight}" for term, weight in value.items())
    if base is None:
        return recipe
    base_path = (path.parent / str(base)).resolve()
    if base_path in (path.resolve(), *extended_by):
        raise RecipeError(f"{path}: extends {base}, which extends it back")
    return {**beneath(_values(base_path, fields, (*extended_by, path.resolve())), recipe), **recipe}


def _not_a_field(name: str, fields: set[str]) -> str:
    if f"--{name}" in TRAINER_FLAGS:
        return refusal(name, TRAINER_FLAGS[f"--{name}"].removeprefix("--"))
    if name.replace("-", "_") in fields:  # a flag may be spelt with hyphens; a key is the field's own name
        return refusal(name, name.replace("-", "_"))
    return f"{name} is not a field of the config (see --help)"

"""A recipe file (trainer/recipes/*.yaml): the config's fields by name, as TRL's `--config` reads them.

`extends: FILE` (relative to the recipe) takes another recipe's values first, so what several runs share is
written once; the recipe's own keys win. Every key must be a field of the config: a typo is refused by name.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from watercolour_trainer import legacy_flags


class RecipeError(ValueError):
    pass


def recipe_values(path: Path, fields: set[str]) -> dict:
    """The recipe's values by field name (`fields`: the config's), those of the files it extends first."""
    return _values(Path(path), fields, ())


def _values(path: Path, fields: set[str], extended_by: tuple[Path, ...]) -> dict:
    try:
        recipe = yaml.safe_load(path.read_text())
    except yaml.YAMLError as error:
        raise RecipeError(f"{path}: not YAML ({error})") from None
    if not isinstance(recipe, dict):
        raise RecipeError(f"{path}: a recipe maps field names to values")
    base = recipe.pop("extends", None)
    own = {}
    for name, value in recipe.items():
        if value is None:
            raise RecipeError(f"{name} has no value")
        try:
            own |= legacy_flags.recipe_entry(name, value, fields)
        except ValueError as error:
            raise RecipeError(str(error)) from None
    if base is None:
        return own
    base_path = (path.parent / str(base)).resolve()
    if base_path in (path.resolve(), *extended_by):
        raise RecipeError(f"{path}: extends {base}, which extends it back")
    return {**_values(base_path, fields, (*extended_by, path.resolve())), **own}

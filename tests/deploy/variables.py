"""The environment variable behind each field of a pydantic-settings class."""

from __future__ import annotations

from pydantic_settings import BaseSettings


def setting_variables(settings: type[BaseSettings]) -> dict[str, str]:
    """Variable -> field name: the field's alias, else env_prefix + its name, upper-cased."""
    prefix = settings.model_config["env_prefix"]
    return {(field.alias or prefix + name).upper(): name for name, field in settings.model_fields.items()}

"""The environment variables behind each field of a pydantic-settings class."""

from __future__ import annotations

from pydantic import AliasChoices
from pydantic_settings import BaseSettings


def setting_variables(settings: type[BaseSettings]) -> dict[str, str]:
    """Variable -> field name: each of the field's aliases (REDIS_URL, HF_TOKEN), else env_prefix + its name,
    upper-cased."""
    prefix = settings.model_config["env_prefix"]
    found = {}
    for name, field in settings.model_fields.items():
        alias = field.validation_alias or field.alias
        names = alias.choices if isinstance(alias, AliasChoices) else [alias or prefix + name]
        found.update({str(variable).upper(): name for variable in names})
    return found

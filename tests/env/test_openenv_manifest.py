"""services/env/openenv.yaml states numbers OpenEnv's tooling reads: each must be what the environment runs with."""

from __future__ import annotations

import importlib

import yaml

from tests.conftest import ROOT
from watercolour_env.settings import EnvSettings
from watercolour_shared.reward import MIX_TERMS

MANIFEST = yaml.safe_load((ROOT / "services" / "env" / "openenv.yaml").read_text())


def test_the_manifest_states_the_settings_numbers():
    settings = EnvSettings()
    assert MANIFEST["port"] == EnvSettings.model_fields["port"].default
    assert MANIFEST["validation"]["resources"]["episode_timeout_s"] == settings.limits()["client_wait_s"]
    low, high = MANIFEST["validation"]["reward"]["range"]
    assert (low, high) == (0.0, 1.0) and abs(sum(settings.default_weights().weight(t) for t in MIX_TERMS) - high) < 1e-9


def test_the_manifest_names_the_app_that_serves():
    module, _, name = MANIFEST["app"].partition(":")
    assert callable(getattr(importlib.import_module(module), name))

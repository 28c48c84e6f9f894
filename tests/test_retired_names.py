"""Old names are retired, not kept (shared/watercolour_shared/retired_names.py): none is read, each is refused naming
what replaced it, and no file keeps one alive with a warning and a date. The trainer's flags and recipe keys are held
in tests/trainer/test_recipe.py, `train-job --mix` and `make train-job MIX=` in tests/deploy/test_train_job.py."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from pydantic import ValidationError

from tests.conftest import ROOT
from tests.deploy.variables import setting_variables
from watercolour_env.server.watercolour_environment import WatercolourEnvironment
from watercolour_env.settings import EnvSettings
from watercolour_shared import retired_names
from watercolour_shared.render_wire import EpisodeOptions
from watercolour_shared.retired_names import EPISODE_OPTIONS, VARIABLES, refusal

# What a name kept alive until a date leaves in a file: the date the old names were read until, the warning they gave.
LINGERING = ("2027-03-01", "FutureWarning")
# docker-compose.yml passes the retired variables on, so the environment can refuse them (tests/test_compose.py).
PASSES_THEM_ON = "docker-compose.yml"


def project_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return [name for name in listed.stdout.splitlines() if not name.startswith("tests/") and (ROOT / name).is_file()]


def test_no_file_but_the_one_names_a_retired_variable_or_keeps_an_old_name_alive():
    home = Path(retired_names.__file__).resolve()
    found = []
    for name in project_files():
        path = ROOT / name
        if path.resolve() == home:
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        named = [old for old in VARIABLES if old in text] if name != PASSES_THEM_ON else []
        found += [f"{name}: {word}" for word in [*named, *(word for word in LINGERING if word in text)]]
    assert not found


@pytest.mark.parametrize(("old", "new"), VARIABLES.items())
def test_a_retired_variable_stops_the_environment_naming_its_new_one(old, new, monkeypatch):
    assert old not in setting_variables(EnvSettings)  # no setting reads it as its own, nor as an alias
    monkeypatch.setenv(old, "0.3")
    with pytest.raises(ValidationError, match=refusal(old, new)):
        EnvSettings()


@pytest.mark.parametrize(("old", "new"), EPISODE_OPTIONS.items())
def test_a_retired_episode_option_is_refused_naming_its_new_one(old, new):
    assert old not in EpisodeOptions.model_fields
    with pytest.raises(ValidationError, match=refusal(old, new)):
        EpisodeOptions.model_validate({old: "hps-only"})
    with pytest.raises(ValidationError, match=refusal(old, new)):  # as a keyword of reset: refused, not ignored
        WatercolourEnvironment(services=None).reset(seed=1, **{old: "hps-only"})

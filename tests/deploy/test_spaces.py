"""`watercolour spaces deploy|status|pause|sleep|resume` against the local Hub, through huggingface_hub."""

from __future__ import annotations

import json
import re
from pathlib import Path

import huggingface_hub.constants
import pytest
import yaml

from tests.deploy.conftest import TOKEN
from tests.deploy.variables import setting_variables
from watercolour_env.settings import EnvSettings
from watercolour_harness.processes import free_port
from watercolour_scorer.settings import ScorerSettings

ROOT = Path(__file__).resolve().parents[2]
ENV, SCORER = "tester/watercolour-env", "tester/watercolour-scorer"
SCORER_APP = "https://tester-watercolour-scorer.hf.space"


def front_matter(readme: bytes) -> dict:
    return yaml.safe_load(re.match(rb"\A---\n(.*?)\n---", readme, re.DOTALL)[1])


def test_deploy_creates_both_spaces_with_hardware_variables_secrets_and_code(hub, watercolour):
    code, out, err = watercolour("spaces", "deploy", "--mix", "hps-led")
    assert code == 0, err

    env, scorer = hub.repo(ENV, "space"), hub.repo(SCORER, "space")
    assert (env.sdk, env.hardware, env.stage) == ("docker", "cpu-upgrade", "RUNNING")
    assert (scorer.sdk, scorer.hardware, scorer.stage) == ("docker", "a100-large", "RUNNING")
    assert env.sleep_time == scorer.sleep_time == 3600
    variables = {key: item["value"] for key, item in env.variables.items()}
    assert variables == {"WATERCOLOUR_MIX": "hps-led", "WATERCOLOUR_SCORER_URL": SCORER_APP, "WATERCOLOUR_BROWSERS": "8"}
    assert {key: item["value"] for key, item in scorer.variables.items()} == {
        "WATERCOLOUR_SCORER_BACKEND": "hpsv3",
        "WATERCOLOUR_SCORER_DEVICE": "cuda",
    }
    for space in (env, scorer):
        assert space.secrets["HF_TOKEN"]["value"] == TOKEN
    # One bearer token, shared: the env Space sends what the scorer Space demands.
    assert env.secrets["WATERCOLOUR_SCORER_TOKEN"]["value"] == scorer.secrets["WATERCOLOUR_SCORER_TOKEN"]["value"]
    assert len(env.secrets["WATERCOLOUR_SCORER_TOKEN"]["value"]) >= 32

    files = env.files()
    assert files["Dockerfile"] == (ROOT / "services/env/Dockerfile").read_bytes()
    assert files["shared/watercolour_shared/reward.py"] == (ROOT / "shared/watercolour_shared/reward.py").read_bytes()
    assert "services/env/assets/package-lock.json" in files
    assert not [path for path in files if "node_modules" in path or "__pycache__" in path or ".egg-info" in path]
    assert (
        front_matter(files["README.md"]).items()
        >= {"sdk": "docker", "app_port": EnvSettings.model_fields["port"].default}.items()
    )
    assert scorer.files()["Dockerfile"] == (ROOT / "services/scorer/Dockerfile").read_bytes()
    assert front_matter(scorer.files()["README.md"])["app_port"] == ScorerSettings.model_fields["port"].default
    assert not [path for path in scorer.files() if path.startswith("services/env/")]

    assert "https://tester-watercolour-env.hf.space" in out and SCORER_APP in out
    assert f"{hub.url}/spaces/{ENV}" in out and "$2.50/h" in out and "$0.03/h" in out


def test_every_variable_the_deploy_sets_is_a_setting_of_that_service(hub, watercolour):
    watercolour("spaces", "deploy")
    for space_id, settings in ((ENV, EnvSettings), (SCORER, ScorerSettings)):
        space = hub.repo(space_id, "space")
        # HF_TOKEN on the scorer is huggingface_hub's (the weights download), not a scorer setting.
        assert set(space.variables) | set(space.secrets) - {"HF_TOKEN"} <= set(setting_variables(settings)), space_id


def test_a_redeploy_updates_in_place_and_removes_files_the_service_no_longer_has(hub, watercolour):
    watercolour("spaces", "deploy")
    env = hub.repo(ENV, "space")
    env.add_commit({**env.files(), "services/env/gone.py": b"old"}, "a file the checkout no longer has")
    code, _, err = watercolour("spaces", "deploy", "--env-hardware", "cpu-basic", "--mix", "hps-only")
    assert code == 0, err
    assert "services/env/gone.py" not in env.files() and ".gitattributes" in env.files()
    assert env.hardware == "cpu-basic" and env.variables["WATERCOLOUR_MIX"]["value"] == "hps-only"
    assert env.variables["WATERCOLOUR_BROWSERS"]["value"] == "2"
    assert env.sleep_time == 3600  # free hardware's sleep time is the Hub's: not set again


def test_deploy_can_duplicate_the_spaces_from_a_source(hub, watercolour):
    for source in ("someone/env-src", "someone/scorer-src"):
        hub.create_repo(source, "space", sdk="docker").add_commit({"Dockerfile": source.encode()}, "theirs")
    code, _, err = watercolour(
        "spaces", "deploy", "--from-env", "someone/env-src", "--from-scorer", "someone/scorer-src", "--mix", "judge-led"
    )
    assert code == 0, err
    env, scorer = hub.repo(ENV, "space"), hub.repo(SCORER, "space")
    assert env.files()["Dockerfile"] == b"someone/env-src" and "shared/watercolour_shared/reward.py" not in env.files()
    assert scorer.files()["Dockerfile"] == b"someone/scorer-src"
    assert (env.hardware, scorer.hardware) == ("cpu-upgrade", "a100-large")
    assert env.variables["WATERCOLOUR_SCORER_URL"]["value"] == SCORER_APP and "HF_TOKEN" in scorer.secrets


def test_status_shows_stage_hardware_and_what_is_billed_now(hub, watercolour):
    watercolour("spaces", "deploy")
    code, out, _ = watercolour("spaces", "status", "--json")
    assert code == 0
    rows = {row["kind"]: row for row in json.loads(out)}
    assert rows["scorer"].items() >= {"space_id": SCORER, "stage": "RUNNING", "hardware": "a100-large", "hourly_usd": 2.5}.items()
    assert rows["env"]["hourly_usd"] == 0.03 and rows["env"]["sleep_time_s"] == 3600

    watercolour("spaces", "pause", "scorer")
    code, out, _ = watercolour("spaces", "status")
    assert code == 0
    scorer_line = next(line for line in out.splitlines() if line.startswith("scorer"))
    assert "PAUSED" in scorer_line and "a100-large" in scorer_line and "$0.00/h" in scorer_line
    assert out.splitlines()[-1] == "billed now: $0.03/h"


def test_pause_sleep_and_resume_stop_and_restart_the_billing(hub, watercolour):
    watercolour("spaces", "deploy")
    env, scorer = hub.repo(ENV, "space"), hub.repo(SCORER, "space")

    assert watercolour("spaces", "pause")[0] == 0
    assert env.stage == scorer.stage == "PAUSED"
    assert watercolour("spaces", "resume", "env")[0] == 0
    assert (env.stage, scorer.stage) == ("RUNNING", "PAUSED")
    code, out, _ = watercolour("spaces", "sleep", "--after", "600", "scorer")
    assert code == 0 and f"scorer  {SCORER}" in out
    assert (env.sleep_time, scorer.sleep_time) == (3600, 600)


def test_spaces_of_another_name_or_namespace(hub, watercolour):
    hub.create_repo("team/painter", "space", sdk="docker").add_commit({"Dockerfile": b"x"}, "app")
    code, out, err = watercolour("spaces", "pause", "env", "--namespace", "team", "--env-space", "painter")
    assert code == 0, err
    assert hub.repo("team/painter", "space").stage == "PAUSED" and "team/painter: PAUSED" in out


def test_hub_refusals_and_unknown_spaces_are_a_message_and_exit_2(hub, watercolour, monkeypatch):
    code, _, err = watercolour("spaces", "pause", "gpu")
    assert code == 2 and "choose env and/or scorer" in err
    code, _, err = watercolour("spaces", "status")
    assert code == 2 and "404" in err and "Traceback" not in err  # nothing deployed yet
    monkeypatch.setenv("HF_TOKEN", "hf_wrong")
    code, _, err = watercolour("spaces", "deploy")
    assert code == 2 and err.startswith("watercolour: Invalid user token")
    assert not hub.repos


@pytest.mark.parametrize("command", [["spaces", "status"], ["spaces", "pause"], ["spaces", "deploy"]])
def test_no_token_or_no_hub_is_one_line_and_exit_2(watercolour, monkeypatch, tmp_path, command):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_TOKEN_PATH", str(tmp_path / "no-token"))
    code, out, err = watercolour(*command)
    assert (code, out) == (2, "") and err.startswith("watercolour: no Hub token") and len(err.splitlines()) == 1
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{free_port()}")
    code, out, err = watercolour(*command, "--namespace", "me", "--token", "hf_x")
    assert (code, out) == (2, "") and "the Hub at http://127.0.0.1:" in err and len(err.splitlines()) == 1

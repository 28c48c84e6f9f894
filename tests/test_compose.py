"""docker-compose.yml against the code: every variable a service gets is a setting that service reads,
every setting in .env.example reaches the services that read it, ports and health paths are the
servers' own, commands exist, and the compose variables are documented. No Docker engine needed."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import shlex
import stat
import subprocess
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml
from pydantic import ValidationError

from tests.deploy import dockerfile
from tests.deploy.launch_script import defaults as launch_defaults
from tests.deploy.variables import setting_variables
from watercolour_env.settings import EnvSettings
from watercolour_harness.stack import JUDGE_TIER_MIX, REFERENCES
from watercolour_scorer.settings import ScorerSettings
from watercolour_shared.cli import parser as watercolour_parser
from watercolour_shared.retired_names import VARIABLES as RETIRED_VARIABLES
from watercolour_shared.reward import MixWeights

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES: dict[str, dict] = COMPOSE["services"]
TRAINER_LAUNCH = ROOT / "trainer" / "container-launch.sh"
# Images (Dockerfile, build target) whose command is a launch script that reads WATERCOLOUR_* variables,
# not a settings class: the trainer, and the demo stage of the environment's Dockerfile.
LAUNCH_SCRIPTS = {
    ("trainer/Dockerfile", None): TRAINER_LAUNCH,
    ("services/env/Dockerfile", "demo"): ROOT / "demo" / "container-launch.sh",
}
# Read by huggingface_hub inside the services, not by our settings: the token for Hub downloads and pushes.
LIBRARY_VARIABLES = {"HF_TOKEN"}
SERVER_MODULES = {
    "services/env/Dockerfile": ROOT / "services/env/watercolour_env/server/routes.py",  # its own routes, beside OpenEnv's
    "services/scorer/Dockerfile": ROOT / "services/scorer/watercolour_scorer/server.py",
}
SETTINGS = {"services/env/Dockerfile": EnvSettings, "services/scorer/Dockerfile": ScorerSettings}


def launch_script(service: dict) -> Path | None:
    return LAUNCH_SCRIPTS.get((service["build"]["dockerfile"], service["build"].get("target")))


def serves(service: dict) -> type | None:
    """The settings class of the server the service runs, None for a launch script's service."""
    return None if launch_script(service) else SETTINGS.get(service["build"]["dockerfile"])


def readers(service: dict) -> set[str]:
    """The variables the code running in `service` reads (the environment reads the retired ones to refuse them)."""
    script = launch_script(service)
    if script:
        return set(re.findall(r"\$\{?([A-Z][A-Z0-9_]*)", script.read_text()))
    return set(setting_variables(serves(service))) | (set(RETIRED_VARIABLES) if serves(service) is EnvSettings else set())


@cache
def example() -> dict[str, str | None]:
    """.env.example: every variable with its value, None when it is commented out (optional, or a secret)."""
    found = {}
    for line in (ROOT / ".env.example").read_text().splitlines():
        match = re.fullmatch(r"(#\s*)?([A-Z][A-Z0-9_]*)=(.*)", line)
        if match:
            found[match[2]] = None if match[1] else match[3]
    return found


def scalars(node: object = COMPOSE) -> str:
    """Every key and value of the compose file, one a line: what compose interpolates (comments are not)."""
    if isinstance(node, dict):
        return "\n".join(f"{key}\n{scalars(value)}" for key, value in node.items())
    if isinstance(node, list):
        return "\n".join(map(scalars, node))
    return "" if node is None else str(node)


def built_services() -> dict[str, dict]:
    return {name: service for name, service in SERVICES.items() if "build" in service}


def image(service: dict) -> list[dockerfile.Stage]:
    return dockerfile.stages(ROOT / service["build"]["dockerfile"])


def routes(server: Path) -> set[str]:
    """The paths of every `@app.get(...)`/`@app.post(...)` in the server module."""
    return {
        node.args[0].value
        for node in ast.walk(ast.parse(server.read_text()))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("get", "post")
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "app"
        and node.args
    }


def health_url(service: dict) -> str:
    return re.search(r"http://[^'\"]+", " ".join(service["healthcheck"]["test"]))[0]


def run_command(service: dict) -> list[str]:
    """What the container runs: compose's command, else the image's CMD (compose turns `$$` into `$`)."""
    command = service.get("command") or dockerfile.command(image(service), service["build"].get("target"))
    return [word.replace("$$", "$") for word in command]


def test_every_service_has_a_healthcheck_and_waits_for_healthy_dependencies():
    for name, service in SERVICES.items():
        assert service["healthcheck"]["test"], name
        for dependency, condition in service.get("depends_on", {}).items():
            assert dependency in SERVICES, (name, dependency)
            assert condition == {"condition": "service_healthy"}, (name, dependency)


def test_a_service_gets_only_variables_its_code_reads():
    for name, service in built_services().items():
        unread = set(service["environment"]) - readers(service) - LIBRARY_VARIABLES
        assert not unread, f"{name} sets {sorted(unread)}, which nothing in it reads"


def test_every_example_setting_reaches_every_service_that_reads_it():
    for name, service in built_services().items():
        missing = (set(example()) & readers(service)) - set(service["environment"])
        assert not missing, f"{name} does not pass {sorted(missing)} from .env.example"


def test_ports_and_health_paths_are_the_servers_own():
    for name, service in built_services().items():
        built = service["build"]["dockerfile"]
        settings = serves(service)
        if settings is None:
            continue
        port = settings.model_fields["port"].default
        assert service["environment"][f"{settings.model_config['env_prefix']}PORT"] == str(port), name
        published = [int(entry.rsplit(":", 1)[1]) for entry in service.get("ports", [])] + [
            int(p) for p in service.get("expose", [])
        ]
        assert published == [port], name
        url = urlsplit(health_url(service))
        assert url.port == port, name
        assert url.path in routes(SERVER_MODULES[built]), f"{name} checks {url.path}, which the server does not serve"


def test_servers_in_containers_listen_beyond_loopback():
    """Outside a container a server listens on loopback unless asked (it has no authentication); each image asks."""
    for name, service in built_services().items():
        if serves(service):
            host = f"{serves(service).model_config['env_prefix']}HOST"
            assert dockerfile.environment(image(service), service["build"].get("target"))[host] == "0.0.0.0", name
    assert EnvSettings.model_fields["host"].default == "127.0.0.1"


def test_a_retired_variable_in_env_reaches_the_environment_which_refuses_it():
    """Compose passes only what it lists: an old name in a .env it did not pass would be dropped without a word."""
    for name, service in built_services().items():
        if serves(service) is EnvSettings:
            assert set(RETIRED_VARIABLES) <= set(service["environment"]), name


def test_the_default_weights_are_one_setting(monkeypatch):
    monkeypatch.setenv("WATERCOLOUR_MIX", "hps-led")
    monkeypatch.setenv("WATERCOLOUR_WEIGHTS", "judge=0, hps=0.9, gate=0.05, length=0.05")
    assert EnvSettings().default_weights() == MixWeights(gate=0.05, length=0.05, judge=0, hps=0.9)  # it wins over the mix
    monkeypatch.setenv("WATERCOLOUR_WEIGHTS", "judge=0.6,hps=0.3")
    with pytest.raises(ValidationError, match="missing: gate, length"):
        EnvSettings()
    monkeypatch.delenv("WATERCOLOUR_WEIGHTS")
    monkeypatch.setenv("WATERCOLOUR_MIX", "vibes")
    with pytest.raises(ValidationError, match="unknown mix preset 'vibes'"):
        EnvSettings()


def test_the_environments_call_a_scorer_of_their_own_profile():
    for name, service in built_services().items():
        scorer_url = service["environment"].get("WATERCOLOUR_SCORER_URL")
        if not scorer_url:
            continue
        url = urlsplit(scorer_url)
        scorer = SERVICES[url.hostname]
        assert set(scorer["profiles"]) == set(service["profiles"]), name
        assert url.port == ScorerSettings.model_fields["port"].default


def test_the_trainer_reaches_every_environment_replica_through_the_service_name():
    trainer = SERVICES["trainer"]
    urls = launch_defaults(TRAINER_LAUNCH)["WATERCOLOUR_ENV_URLS"].split()
    assert example()["WATERCOLOUR_ENV_URLS"].split() == urls
    for url in map(urlsplit, urls):
        env = SERVICES[url.hostname]
        assert env["build"]["dockerfile"] == "services/env/Dockerfile" and "gpu" in env["profiles"]
        assert url.port == EnvSettings.model_fields["port"].default
        # --scale env=N: no fixed host port, no container name, so replicas can coexist.
        assert "container_name" not in env and all("-" in entry.rsplit(":", 1)[0] for entry in env["ports"])
    assert "/runs" in {volume.split(":")[1] for volume in trainer["volumes"]}
    assert '--output_dir "/runs/' in TRAINER_LAUNCH.read_text()


def test_commands_exist():
    scripts = {point.name for point in entry_points(group="console_scripts")}
    for name, service in built_services().items():
        command = run_command(service)
        if command[:2] == ["sh", "-c"]:
            command = shlex.split(command[2].rsplit("exec ", 1)[1])
        if command[0] == "watercolour":
            try:
                assert watercolour_parser().parse_args(command[1:]).command == command[1], name
            except SystemExit:
                pytest.fail(f"{name} runs `{shlex.join(command)}`, which the watercolour CLI refuses")
        elif command[0] == "sh":
            assert (ROOT / command[1]).is_file(), name
            launched = re.search(r"exec python (-m )?(\S+)", (ROOT / command[1]).read_text())
            if launched[1]:
                assert importlib.util.find_spec(launched[2]), name
            else:
                assert (ROOT / launched[2]).is_file(), name
        else:
            assert command[0] in scripts, name


def test_gpu_services_reserve_the_gpu_their_variable_names():
    for name in ("scorer", "trainer", "env"):
        (device,) = SERVICES[name]["deploy"]["resources"]["reservations"]["devices"]
        assert device["driver"] == "nvidia" and device["capabilities"][0] == "gpu", name
        (gpu,) = device["device_ids"]
        assert re.fullmatch(r"\$\{WATERCOLOUR_[A-Z]+_GPU:-\d+\}", gpu), name
    # WebGL needs the driver's Vulkan/EGL libraries, which the NVIDIA runtime mounts only for `graphics`.
    assert "graphics" in SERVICES["env"]["deploy"]["resources"]["reservations"]["devices"][0]["capabilities"]
    assert "graphics" in dockerfile.environment(image(SERVICES["env"]))["NVIDIA_DRIVER_CAPABILITIES"].split(",")


def test_the_hugging_face_cache_is_a_volume_where_each_image_looks_for_it():
    for name, service in built_services().items():
        hf_home = dockerfile.environment(image(service), service["build"].get("target"))["HF_HOME"]
        assert f"hf-cache:{hf_home}" in service["volumes"], name


def test_every_compose_variable_is_in_env_example_with_the_same_default():
    used = re.findall(r"(?<!\$)\$\{([A-Z][A-Z0-9_]*)(?::-([^}]*))?\}", scalars())
    assert used
    for variable, default in used:
        assert variable in example(), f"{variable} is used in docker-compose.yml but not in .env.example"
        assert default == example()[variable], variable


def test_no_compose_level_required_variable_breaks_another_profile():
    # Compose interpolates every service before it applies profiles: a `${VAR:?}` would stop them all.
    assert "$${HF_TOKEN:?" in scalars()  # the container's shell checks it instead
    assert not re.search(r"(?<!\$)\$\{[A-Z0-9_]+:?\?", scalars())


def test_the_router_judge_environment_fails_fast_without_hf_token(tmp_path):
    routed = {
        name: service
        for name, service in built_services().items()
        if serves(service) is EnvSettings
        and (service["environment"]["WATERCOLOUR_JUDGE"] or EnvSettings.model_fields["judge"].default) == "router"
    }
    assert set(routed) == {"env"}
    fake = tmp_path / "watercolour"
    fake.write_text('#!/bin/sh\necho "serving $*"\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    clean = {"PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}
    command = run_command(routed["env"])
    refused = subprocess.run(command, env=clean, capture_output=True, text=True)
    assert refused.returncode != 0 and "HF_TOKEN is required" in refused.stderr
    assert "serving" not in refused.stdout
    for extra in ({"HF_TOKEN": "hf_x"}, {"WATERCOLOUR_JUDGE": "off"}):
        started = subprocess.run(command, env={**clean, **extra}, capture_output=True, text=True)
        assert started.stdout == "serving serve\n", extra


def test_env_example_documents_every_variable_with_a_safe_default():
    lines = (ROOT / ".env.example").read_text().splitlines()
    for index, line in enumerate(lines):
        if not re.fullmatch(r"(#\s*)?[A-Z][A-Z0-9_]*=.*", line):
            continue
        block_start = index
        while block_start and re.fullmatch(r"(#\s*)?[A-Z][A-Z0-9_]*=.*", lines[block_start - 1]):
            block_start -= 1
        assert block_start and lines[block_start - 1].startswith("#"), f"no comment above {line!r}"
    for variable, value in example().items():
        if "TOKEN" in variable:
            assert value is None, f"{variable} is a secret: .env.example must not set it"
        else:
            assert value != "", variable


@pytest.mark.parametrize("settings", [EnvSettings, ScorerSettings])
def test_env_example_values_are_the_code_defaults(settings, monkeypatch):
    fields = setting_variables(settings)
    checked = 0
    for variable, value in example().items():
        if variable in fields and value is not None:
            monkeypatch.setenv(variable, value)
            name = fields[variable]
            assert getattr(settings(), name) == settings.model_fields[name].get_default(call_default_factory=True), variable
            checked += 1
    assert checked >= 5


@pytest.mark.parametrize("name", ["trainer", "demo"])
def test_launch_script_example_values_are_its_defaults(name):
    """The defaults live in the script: compose hands a variable .env leaves out to the container unset."""
    service = SERVICES[name]
    defaults = launch_defaults(launch_script(service))
    assert defaults
    for variable, value in defaults.items():
        assert example()[variable] == value, variable
        assert variable in service["environment"], variable
    assert not set(defaults) & set(dockerfile.environment(image(service), service["build"].get("target")))


def test_the_demo_trains_against_the_cpu_profiles_environment_built_on_its_image():
    demo = SERVICES["demo"]
    url = urlsplit(example()["WATERCOLOUR_DEMO_ENV_URL"])
    env = SERVICES[url.hostname]
    assert set(env["profiles"]) == set(demo["profiles"]) == {"cpu"}
    assert url.port == EnvSettings.model_fields["port"].default
    assert demo["depends_on"] == {url.hostname: {"condition": "service_healthy"}}
    # The demo stage shares the environment's runtime (Chromium, the gate's dependencies) in the same file.
    assert demo["build"]["dockerfile"] == env["build"]["dockerfile"]
    demo_stages, env_stages = ([s.name for s in dockerfile.chain(image(x), x["build"]["target"])] for x in (demo, env))
    assert demo_stages[:-1] == env_stages[:-1] and (demo_stages[-1], env_stages[-1]) == ("demo", "env")
    assert "/runs" in {volume.split(":")[1] for volume in demo["volumes"]}
    # The demo asks for every bundled reference; the profile's environment draws them in the same tiers.
    assert json.loads(env["environment"]["WATERCOLOUR_JUDGE_TIER_MIX"]) == JUDGE_TIER_MIX
    assert int(env["environment"]["WATERCOLOUR_JUDGE_REFERENCES"]) == REFERENCES

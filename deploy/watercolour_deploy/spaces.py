"""The env Space and the scorer Space: deploy them, read their stage and cost, stop their billing.

Only huggingface_hub 2.x calls: `duplicate_repo(repo_type="space")` replaces the removed
`duplicate_space`; hardware, variables, secrets, sleep time and pause go through their own endpoints,
so a redeploy changes an existing Space in place.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from huggingface_hub import HfApi

from watercolour_deploy.space_hardware import VCPUS, hourly_now
from watercolour_deploy.space_tree import LAYOUTS, build_tree
from watercolour_shared.hardware import hourly_cost

KINDS = ("env", "scorer")
DEFAULT_NAMES = {"env": "watercolour-env", "scorer": "watercolour-scorer"}


@dataclass(frozen=True)
class DeployOptions:
    mix: str
    hf_token: str
    scorer_token: str
    hardware: dict[str, str]
    sources: dict[str, str | None]
    sleep_after_s: int


@dataclass(frozen=True)
class Deployed:
    kind: str
    space_id: str
    page_url: str
    app_url: str


def app_url(api: HfApi, space_id: str) -> str:
    """Where the Space's app answers: the Hub's `host`, or its documented rule."""
    return api.space_info(space_id).host or ruled_app_url(space_id)


def ruled_app_url(space_id: str) -> str:
    """The Hub's documented rule for a Space's app URL: owner-name.hf.space."""
    return f"https://{re.sub(r'[/_.]', '-', space_id).lower()}.hf.space"


def deploy(api: HfApi, ids: dict[str, str], options: DeployOptions, root: Path) -> list[Deployed]:
    """The scorer first (the env Space needs its URL), then the env Space."""
    scorer = _deploy_one(api, "scorer", ids["scorer"], options, root, _scorer_variables())
    env = _deploy_one(api, "env", ids["env"], options, root, _env_variables(options, scorer.app_url))
    return [env, scorer]


def _scorer_variables() -> dict[str, str]:
    return {"WATERCOLOUR_SCORER_BACKEND": "hpsv3", "WATERCOLOUR_SCORER_DEVICE": "cuda"}


def _env_variables(options: DeployOptions, scorer_url: str) -> dict[str, str]:
    # os.cpu_count() in a Space sees the host's CPUs, not the hardware's: size the browser pool by the flavour.
    browsers = VCPUS[options.hardware["env"]]
    return {"WATERCOLOUR_MIX": options.mix, "WATERCOLOUR_SCORER_URL": scorer_url, "WATERCOLOUR_BROWSERS": str(browsers)}


def _deploy_one(api: HfApi, kind: str, space_id: str, options: DeployOptions, root: Path, variables: dict) -> Deployed:
    hardware = options.hardware[kind]
    source = options.sources[kind]
    if source:
        api.duplicate_repo(source, space_id, repo_type="space", space_hardware=hardware, exist_ok=True)
    else:
        api.create_repo(space_id, repo_type="space", space_sdk="docker", exist_ok=True)
    api.request_space_hardware(space_id, hardware)
    for key, value in variables.items():
        api.add_space_variable(space_id, key, value)
    secrets = {"HF_TOKEN": options.hf_token, "WATERCOLOUR_SCORER_TOKEN": options.scorer_token}
    for key, value in secrets.items():
        api.add_space_secret(space_id, key, value)
    if hourly_cost(hardware) != 0:  # free hardware has a fixed sleep time
        api.set_space_sleep_time(space_id, options.sleep_after_s)
    if not source:
        with tempfile.TemporaryDirectory() as staging:
            tree = build_tree(LAYOUTS[kind], root, Path(staging) / "space")
            # "*" removes files an earlier deploy uploaded that the service no longer has (.gitattributes stays).
            api.upload_folder(
                folder_path=tree,
                repo_id=space_id,
                repo_type="space",
                delete_patterns="*",
                commit_message=f"watercolour-rl {kind} service",
            )
    return Deployed(kind, space_id, f"{api.endpoint}/spaces/{space_id}", app_url(api, space_id))


@dataclass(frozen=True)
class SpaceStatus:
    kind: str
    space_id: str
    stage: str | None
    hardware: str | None
    sleep_time_s: int | None

    @property
    def hourly_usd(self) -> float | None:
        """What the Space costs now: 0 unless its stage is billed."""
        return hourly_now(self.stage, self.hardware)


def status(api: HfApi, ids: dict[str, str]) -> list[SpaceStatus]:
    found = []
    for kind, space_id in ids.items():
        runtime = api.get_space_runtime(space_id)
        found.append(
            SpaceStatus(kind, space_id, runtime.stage, runtime.hardware or runtime.requested_hardware, runtime.sleep_time)
        )
    return found


def pause(api: HfApi, ids: dict[str, str]) -> dict[str, str]:
    """Paused Spaces are not billed and stay paused until resumed (only the owner can)."""
    return {kind: api.pause_space(space_id).stage for kind, space_id in ids.items()}


def sleep(api: HfApi, ids: dict[str, str], after_s: int) -> dict[str, str]:
    """An idle Space sleeps after `after_s` seconds (not billed) and wakes on the next request."""
    return {kind: api.set_space_sleep_time(space_id, after_s).stage for kind, space_id in ids.items()}


def resume(api: HfApi, ids: dict[str, str]) -> dict[str, str]:
    return {kind: api.restart_space(space_id).stage for kind, space_id in ids.items()}

"""The studio against a Hub on loopback (tests/hub_server.py), through the real huggingface_hub client."""

import json
import os
from pathlib import Path

import pytest
from huggingface_hub import HfApi, snapshot_download
from playwright.async_api import expect

from tests.hub_server import HubServer
from tests.studio.conftest import served, watercolour
from tests.studio.test_check_run import CHECKS, write_adapter
from tests.studio.test_pool_pack import grade
from watercolour_shared.reference_pool import ReferencePool
from watercolour_shared.run_dir import RECORDS, RunReader

TOKEN = "hub-token"
REPO = "tester/watercolour-grpo"
SPACE = "tester/watercolour-scorer"


@pytest.fixture
def hub():
    with HubServer(token=TOKEN) as server:
        yield server


@pytest.fixture
def hub_env(hub, tmp_path) -> dict:
    """The studio's commands talk to the local Hub, with a cache of their own."""
    return {**os.environ, "HF_ENDPOINT": hub.url, "HF_TOKEN": TOKEN, "HF_HOME": str(tmp_path / "hf-home")}


@pytest.fixture
def pushed_run(hub, film_copy) -> HfApi:
    """The run as the trainer pushes it: adapter and film in the model repo, the rollouts as a parquet dataset."""
    plan = json.loads((film_copy / "run.json").read_text())
    (film_copy / "run.json").write_text(json.dumps({**plan, "push_to": REPO}))
    write_adapter(film_copy)
    api = HfApi(endpoint=hub.url, token=TOKEN)
    api.create_repo(REPO)
    api.upload_folder(folder_path=film_copy / "adapter", repo_id=REPO)
    api.upload_folder(folder_path=film_copy, repo_id=REPO, allow_patterns=list(RECORDS))
    api.create_repo(f"{REPO}-rollouts", repo_type="dataset")
    api.upload_file(
        path_or_fileobj=b"PAR1", path_in_repo="data/train-00000-of-00001.parquet", repo_id=f"{REPO}-rollouts", repo_type="dataset"
    )
    return api


def test_a_packed_pool_is_pushed_and_downloads_as_the_same_pool(hub, hub_env, generated_copy, tmp_path):
    grade(generated_copy)
    done = watercolour("pool", "pack", str(generated_copy), "--out", str(tmp_path / "pool"), "--push", "tester/pool", env=hub_env)
    assert done.returncode == 0, done.stderr
    commit = hub.repo("tester/pool", "dataset").branches["main"]
    assert f"WATERCOLOUR_POOL_REVISION={commit}" in done.stdout
    folder = snapshot_download(
        "tester/pool", repo_type="dataset", revision=commit, endpoint=hub.url, token=TOKEN, cache_dir=tmp_path / "dl"
    )
    downloaded, local = ReferencePool.from_folder(Path(folder)), ReferencePool.from_folder(tmp_path / "pool")
    assert downloaded.tiers() == local.tiers()
    for ours, theirs in zip(local.entries, downloaded.entries, strict=True):
        assert (ours.id, ours.tier, ours.image.read_bytes()) == (theirs.id, theirs.tier, theirs.image.read_bytes())


async def test_the_gallery_opens_a_run_from_the_hub(pushed_run, hub, hub_env, page, film_copy):
    with served("gallery", REPO, "--from-hub", "--port", "0", env=hub_env) as url:
        await page.goto(f"{url}/#/steps?step=4")
        await expect(page.locator("#paintings .card img")).to_have_count(len(RunReader(film_copy).rollouts(4)))
        await expect(page.locator("#run-facts")).to_contain_text("4 steps · 32 rollouts")
        await expect(page.locator("#paintings img").first).to_have_js_property("naturalWidth", 600)
    downloads = [path for method, path in hub.requests if method == "GET" and "/resolve/" in path]
    assert downloads and not any("adapter_model" in path for path in downloads)  # the film only, never the weights


def test_check_run_finds_the_pushed_adapter_and_rollouts_on_the_hub(pushed_run, hub_env, film_copy):
    (film_copy / "adapter" / "adapter_model.safetensors").unlink()  # what counts is on the Hub
    done = watercolour("check-run", REPO, "--from-hub", "--json", env=hub_env)
    checks = {check["name"]: check for check in json.loads(done.stdout)}
    assert list(checks) == CHECKS and done.returncode == 0, done.stdout
    assert checks["artifacts exist"]["evidence"][:2] == [
        f"adapter on the Hub: {REPO}",
        f"rollouts dataset on the Hub: {REPO}-rollouts",
    ]
    pushed_run.delete_file("data/train-00000-of-00001.parquet", repo_id=f"{REPO}-rollouts", repo_type="dataset")
    again = watercolour("check-run", str(film_copy), "--json", env=hub_env)
    artifacts = {check["name"]: check for check in json.loads(again.stdout)}["artifacts exist"]
    assert again.returncode == 1 and artifacts["line"] == "missing or unreadable: the rollouts dataset"


def space_check(done) -> dict:
    return {check["name"]: check for check in json.loads(done.stdout)}["scoring Space paused"]


def test_the_scoring_space_must_be_paused(hub, hub_env, film_copy):
    write_adapter(film_copy)
    space = hub.create_repo(SPACE, "space", sdk="docker", hardware="t4-small")
    space.add_commit({"Dockerfile": b"FROM python:3.11\n"}, "app")
    running = watercolour("check-run", str(film_copy), "--space", SPACE, "--json", env=hub_env)
    check = space_check(running)
    assert running.returncode == 1 and check["status"] == "fail"
    assert check["line"].startswith(f"{SPACE} is RUNNING: pause it")
    HfApi(endpoint=hub.url, token=TOKEN).pause_space(SPACE)
    paused = watercolour("check-run", str(film_copy), "--space", SPACE, "--json", env=hub_env)
    assert paused.returncode == 0 and space_check(paused)["line"] == f"{SPACE} is PAUSED"

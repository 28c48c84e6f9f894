"""The reference pool loaded from a Hub dataset (the local Hub, through the real huggingface_hub client):
pinned and branch revisions, the commit named in its origin, and clear errors naming repo and revision."""

import json
import logging
import os
import shutil
import subprocess
import sys

import huggingface_hub.constants
import pytest
from huggingface_hub import HfApi

from tests.conftest import BUNDLED_POOL
from tests.hub_server import HubServer
from watercolour_env.reference_download import download_reference_pool
from watercolour_shared.reference_pool import ReferencePool, ReferencePoolError

BUNDLED_TIERS = {"love": 4, "okay": 2, "meh": 2, "nope": 0}


@pytest.fixture(autouse=True)
def hub_cache(tmp_path, monkeypatch):
    """Each test downloads into its own Hub cache, so what it loads came from the server."""
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hub-cache"))


@pytest.fixture
def hub():
    with HubServer() as server:
        yield server


def publish(hub, repo_id, folder, token="any-token") -> str:
    api = HfApi(endpoint=hub.url, token=token)
    api.create_repo(repo_id, repo_type="dataset")
    return api.upload_folder(folder_path=folder, repo_id=repo_id, repo_type="dataset").oid


def edited_pool(tmp_path, edit):
    """The bundled pool with its metadata rows passed through `edit`."""
    folder = shutil.copytree(BUNDLED_POOL, tmp_path / "edited")
    metadata = folder / "metadata.jsonl"
    rows = edit([json.loads(line) for line in metadata.read_text().splitlines()])
    metadata.write_text("\n".join(json.dumps(row) for row in rows))
    return folder


def test_a_pinned_commit_loads_the_pool_as_the_folder_does(hub, caplog):
    commit = publish(hub, "org/pool", BUNDLED_POOL)
    with caplog.at_level(logging.WARNING):
        pool = download_reference_pool("org/pool", commit, endpoint=hub.url)
    local = ReferencePool.from_folder(BUNDLED_POOL)
    assert pool.tiers() == BUNDLED_TIERS
    assert [(e.id, e.tier, e.image.read_bytes()) for e in pool.entries] == [
        (e.id, e.tier, e.image.read_bytes()) for e in local.entries
    ]
    assert [r.id for r in pool.sample({"love": 2, "okay": 2}, 4, seed=7)] == [
        r.id for r in local.sample({"love": 2, "okay": 2}, 4, seed=7)
    ]
    assert pool.origin == f"org/pool@{commit}"
    assert "not pinned" not in caplog.text


def test_a_branch_is_resolved_to_its_commit_and_warned_about(hub, caplog):
    commit = publish(hub, "org/pool", BUNDLED_POOL)
    with caplog.at_level(logging.WARNING):
        pool = download_reference_pool("org/pool", "main", endpoint=hub.url)
    assert pool.origin == f"org/pool@{commit} (from 'main')"
    assert pool.tiers() == BUNDLED_TIERS
    assert f"org/pool@main is not pinned: it loaded commit {commit}" in caplog.text
    assert f"WATERCOLOUR_POOL_REVISION={commit}" in caplog.text


def test_a_later_commit_moves_the_branch_but_not_a_pinned_pool(hub, tmp_path, monkeypatch):
    first = publish(hub, "org/pool", BUNDLED_POOL)
    without_meh = edited_pool(tmp_path, lambda rows: [row for row in rows if row["tier"] != "meh"])
    HfApi(endpoint=hub.url, token="any-token").upload_file(
        path_or_fileobj=without_meh / "metadata.jsonl", path_in_repo="metadata.jsonl", repo_id="org/pool", repo_type="dataset"
    )
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "fresh-cache"))
    pinned = download_reference_pool("org/pool", first, endpoint=hub.url)
    moved = download_reference_pool("org/pool", "main", endpoint=hub.url)
    assert pinned.tiers() == BUNDLED_TIERS and pinned.origin == f"org/pool@{first}"
    assert moved.tiers() == {"love": 4, "okay": 2, "meh": 0, "nope": 0}
    assert first not in moved.origin


@pytest.mark.parametrize(
    ("repo_id", "revision", "message"),
    [
        ("org/absent", "main", r"org/absent@main: no such dataset on the Hub, or the token cannot read it \(HTTP 404\)"),
        ("org/pool", "v9", r"org/pool@v9: the dataset has no revision 'v9'"),
        ("org/pool", "0" * 40, rf"org/pool@{'0' * 40}: the dataset has no revision"),
    ],
)
def test_an_unknown_repo_or_revision_is_a_clear_error(hub, repo_id, revision, message):
    publish(hub, "org/pool", BUNDLED_POOL)
    with pytest.raises(ReferencePoolError, match=message):
        download_reference_pool(repo_id, revision, endpoint=hub.url)


def test_a_published_pool_missing_an_image_is_a_clear_error(hub, tmp_path):
    folder = shutil.copytree(BUNDLED_POOL, tmp_path / "broken")
    (folder / "images" / "love-001.png").unlink()
    commit = publish(hub, "org/broken", folder)
    with pytest.raises(ReferencePoolError, match=rf"org/broken@main \(commit {commit}\): .*'images/love-001.png' is missing"):
        download_reference_pool("org/broken", "main", endpoint=hub.url)


def test_a_published_pool_with_an_unknown_tier_is_a_clear_error(hub, tmp_path):
    folder = edited_pool(tmp_path, lambda rows: [{**rows[0], "tier": "masterpiece"}, *rows[1:]])
    commit = publish(hub, "org/graded", folder)
    with pytest.raises(ReferencePoolError, match=rf"org/graded@{commit} \(commit {commit}\): .*unknown tier 'masterpiece'"):
        download_reference_pool("org/graded", commit, endpoint=hub.url)


def test_a_private_pool_needs_the_right_token(tmp_path):
    with HubServer(token="right") as hub:
        publish(hub, "org/private", BUNDLED_POOL, token="right")
        with pytest.raises(ReferencePoolError, match=r"org/private@main: could not be downloaded \(HfHubHTTPError: .*401"):
            download_reference_pool("org/private", "main", endpoint=hub.url, token="wrong")
        assert download_reference_pool("org/private", "main", endpoint=hub.url, token="right").tiers() == BUNDLED_TIERS


def test_the_service_call_honours_hf_endpoint_and_hf_token(tmp_path):
    """services.py calls download_reference_pool(repo, revision) alone: HF_ENDPOINT and HF_TOKEN, read by huggingface_hub
    when it is imported, point it at another Hub, so this runs in a fresh process."""
    with HubServer(token="right") as hub:
        commit = publish(hub, "org/pool", BUNDLED_POOL, token="right")
        home = tmp_path / "hf-home"
        env = {**os.environ, "HF_ENDPOINT": hub.url, "HF_TOKEN": "right", "HF_HOME": str(home), "HF_HUB_CACHE": str(home / "hub")}
        code = (
            "from watercolour_env.reference_download import download_reference_pool; "
            "print(download_reference_pool('org/pool', 'main').origin)"
        )
        loaded = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert loaded.returncode == 0, loaded.stderr[-2000:]
    assert loaded.stdout.strip() == f"org/pool@{commit} (from 'main')"

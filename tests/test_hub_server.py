"""The local Hub against the real huggingface_hub client: what one call writes, the next reads back."""

from pathlib import Path

import huggingface_hub.constants
import pytest
from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi, hf_hub_download, snapshot_download
from huggingface_hub.errors import HfHubHTTPError, RemoteEntryNotFoundError, RepositoryNotFoundError, RevisionNotFoundError

from tests.conftest import BUNDLED_POOL
from tests.hub_server import HubServer


@pytest.fixture
def hub():
    with HubServer() as server:
        yield server


@pytest.fixture
def api(hub):
    return HfApi(endpoint=hub.url, token="any-token")


def download(hub, repo_id, tmp_path, **kwargs):
    return snapshot_download(repo_id, repo_type="dataset", endpoint=hub.url, token="any-token", cache_dir=tmp_path, **kwargs)


@pytest.mark.parametrize("xet", [True, False], ids=["pipelined-upload", "single-commit-upload"])
def test_a_folder_uploaded_as_a_dataset_downloads_back_the_same(hub, api, tmp_path, monkeypatch, xet):
    # With hf_xet installed upload_folder streams through its pipeline; without, it makes one create_commit.
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_DISABLE_XET", not xet)
    url = api.create_repo("org/pool", repo_type="dataset")
    assert (url.repo_id, url.repo_type) == ("org/pool", "dataset")
    commit = api.upload_folder(folder_path=BUNDLED_POOL, repo_id="org/pool", repo_type="dataset")

    info = api.repo_info("org/pool", repo_type="dataset")
    assert info.sha == commit.oid == hub.repo("org/pool", "dataset").branches["main"]
    uploaded = {p.relative_to(BUNDLED_POOL).as_posix(): p.read_bytes() for p in BUNDLED_POOL.rglob("*") if p.is_file()}
    assert {s.rfilename for s in info.siblings} == {".gitattributes", *uploaded}
    assert api.repo_exists("org/pool", repo_type="dataset") and not api.repo_exists("org/pool")

    folder = download(hub, "org/pool", tmp_path, revision="main")
    assert folder.endswith(commit.oid)
    assert all((Path(folder) / path).read_bytes() == content for path, content in uploaded.items())
    assert ("POST", "/api/datasets/org/pool/preupload/main") in hub.requests
    assert ("POST", "/api/datasets/org/pool/commit/main") in hub.requests


def test_a_pinned_commit_keeps_its_files_after_later_commits(hub, api, tmp_path):
    api.create_repo("org/notes", repo_type="dataset")
    first = api.upload_file(path_or_fileobj=b"one", path_in_repo="notes/a.txt", repo_id="org/notes", repo_type="dataset")
    second = api.create_commit(
        "org/notes",
        [CommitOperationAdd("notes/b.txt", b"two"), CommitOperationDelete("notes/a.txt")],
        commit_message="swap",
        repo_type="dataset",
    )
    assert hub.repo("org/notes", "dataset").commits[second.oid].parent == first.oid

    pinned = download(hub, "org/notes", tmp_path / "pinned", revision=first.oid)
    latest = download(hub, "org/notes", tmp_path / "latest")
    assert (Path(pinned) / "notes" / "a.txt").read_text() == "one"
    assert (Path(latest) / "notes" / "b.txt").read_text() == "two"
    assert not (Path(latest) / "notes" / "a.txt").exists()
    assert [entry.path for entry in api.list_repo_tree("org/notes", repo_type="dataset")] == ["notes", ".gitattributes"]
    path = hf_hub_download(
        "org/notes", "notes/a.txt", repo_type="dataset", revision=first.oid, endpoint=hub.url, cache_dir=tmp_path
    )
    assert Path(path).read_text() == "one"


def test_unchanged_files_make_no_commit_and_a_stale_parent_is_refused(hub, api):
    api.create_repo("org/model")
    first = api.upload_file(path_or_fileobj=b"{}", path_in_repo="config.json", repo_id="org/model")
    commits = sum(request == ("POST", "/api/models/org/model/commit/main") for request in hub.requests)
    again = api.upload_file(path_or_fileobj=b"{}", path_in_repo="config.json", repo_id="org/model")
    assert again.oid == first.oid  # the preupload oid told the client nothing changed
    assert sum(request == ("POST", "/api/models/org/model/commit/main") for request in hub.requests) == commits

    api.upload_file(path_or_fileobj=b"{1}", path_in_repo="config.json", repo_id="org/model")
    with pytest.raises(HfHubHTTPError) as stale:
        api.create_commit("org/model", [CommitOperationAdd("x.txt", b"x")], commit_message="late", parent_commit=first.oid)
    assert stale.value.response.status_code == 412


def test_a_space_is_created_configured_and_duplicated(hub, api):
    api.create_repo("org/app", repo_type="space", space_sdk="docker", space_hardware="cpu-upgrade")
    assert api.get_space_runtime("org/app").stage == "NO_APP_FILE"
    api.upload_file(path_or_fileobj=b"FROM python:3.12\n", path_in_repo="Dockerfile", repo_id="org/app", repo_type="space")
    runtime = api.space_info("org/app").runtime
    assert (runtime.stage, runtime.hardware) == ("RUNNING", "cpu-upgrade")

    variables = api.add_space_variable("org/app", "MODEL", "org/model", description="served model")
    assert variables["MODEL"].value == "org/model"
    api.add_space_secret("org/app", "HF_TOKEN", "hf_secret")
    assert api.request_space_hardware("org/app", "t4-small").requested_hardware == "t4-small"
    assert api.set_space_sleep_time("org/app", 3600).sleep_time == 3600
    assert api.pause_space("org/app").stage == "PAUSED"
    assert api.get_space_runtime("org/app").hardware is None
    assert api.restart_space("org/app").stage == "RUNNING"

    space = hub.repo("org/app", "space")
    assert (space.sdk, space.hardware, space.sleep_time, space.stage) == ("docker", "t4-small", 3600, "RUNNING")
    assert space.variables["MODEL"]["description"] == "served model"
    assert space.secrets["HF_TOKEN"]["value"] == "hf_secret"

    copy = api.duplicate_repo(
        "org/app", "org/app-copy", repo_type="space", space_hardware="cpu-basic", space_variables=[{"key": "A", "value": "1"}]
    )
    assert copy.repo_id == "org/app-copy"
    duplicate = hub.repo("org/app-copy", "space")
    assert duplicate.files() == space.files()
    assert (duplicate.sdk, duplicate.hardware, duplicate.stage, duplicate.variables["A"]["value"]) == (
        "docker",
        "cpu-basic",
        "RUNNING",
        "1",
    )
    assert ("POST", "/api/spaces/org/app/duplicate") in hub.requests


def test_missing_repos_revisions_and_files_are_the_hubs_404s(hub, api, tmp_path):
    api.create_repo("org/pool", repo_type="dataset")
    with pytest.raises(RepositoryNotFoundError):
        download(hub, "org/absent", tmp_path)
    with pytest.raises(RevisionNotFoundError):
        download(hub, "org/pool", tmp_path, revision="v9")
    with pytest.raises(RevisionNotFoundError):
        download(hub, "org/pool", tmp_path, revision="0" * 40)
    with pytest.raises(RemoteEntryNotFoundError):
        hf_hub_download("org/pool", "absent.txt", repo_type="dataset", endpoint=hub.url, cache_dir=tmp_path)


def test_a_server_with_a_token_answers_401_without_it(tmp_path):
    with HubServer(token="right") as hub:
        assert HfApi(endpoint=hub.url, token="right").whoami()["name"] == "tester"
        with pytest.raises(HfHubHTTPError, match="Invalid user token") as wrong:
            HfApi(endpoint=hub.url, token="wrong").whoami()
        assert wrong.value.response.status_code == 401
        HfApi(endpoint=hub.url, token="right").create_repo("org/private", repo_type="dataset", private=True)
        with pytest.raises(RepositoryNotFoundError) as hidden:
            HfApi(endpoint=hub.url, token=False).repo_info("org/private", repo_type="dataset")
        assert hidden.value.response.status_code == 401
        with pytest.raises(HfHubHTTPError) as refused:
            snapshot_download("org/private", repo_type="dataset", endpoint=hub.url, token="wrong", cache_dir=tmp_path)
        assert refused.value.response.status_code == 401
        assert hub.repo("org/private", "dataset").private

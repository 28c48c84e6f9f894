"""The local Hub's state: repos with their commits and branches, Space settings, and the Hub's error format.
Served by tests/hub_server.py through tests/hub_routes.py; tests seed and inspect it directly."""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass, field
from datetime import datetime, timezone

# What the Hub commits first into every new repo.
GITATTRIBUTES = b"*.bin filter=lfs diff=lfs merge=lfs -text\n*.safetensors filter=lfs diff=lfs merge=lfs -text\n"
URL_PREFIXES = {"model": "", "dataset": "datasets/", "space": "spaces/"}
_COMMIT_COUNTER = itertools.count()


def git_blob_sha(content: bytes) -> str:
    """The git object id of a file: the Hub's ETag and tree oid for regular files."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


def now_iso() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class HubError(Exception):
    """An answer in the Hub's error format: the status, X-Error-Code, and the message as header and JSON."""

    def __init__(self, status: int, message: str, code: str | None = None, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.headers = headers or {}

    def answer(self) -> tuple[int, dict[str, str], bytes]:
        headers = {**self.headers, "X-Error-Message": self.message}
        if self.code:
            headers["X-Error-Code"] = self.code
        return self.status, headers, json.dumps({"error": self.message}).encode()


@dataclass
class Commit:
    oid: str
    parent: str | None
    message: str
    files: dict[str, bytes]  # the whole tree at this commit


@dataclass
class Repo:
    id: str
    type: str
    private: bool = False
    commits: dict[str, Commit] = field(default_factory=dict)
    branches: dict[str, str] = field(default_factory=dict)
    last_modified: str = field(default_factory=now_iso)
    # Spaces only
    sdk: str | None = None
    hardware: str | None = None
    stage: str | None = None
    sleep_time: int | None = None
    variables: dict[str, dict] = field(default_factory=dict)
    secrets: dict[str, dict] = field(default_factory=dict)

    @property
    def url_path(self) -> str:
        return URL_PREFIXES[self.type] + self.id

    def commit_at(self, revision: str) -> Commit:
        """A branch's head or a full commit oid, as the Hub resolves `revision`."""
        oid = self.branches.get(revision, revision)
        if oid not in self.commits:
            raise HubError(404, f"Invalid rev id: {revision}", "RevisionNotFound")
        return self.commits[oid]

    def files(self, revision: str = "main") -> dict[str, bytes]:
        return dict(self.commit_at(revision).files)

    def add_commit(self, files: dict[str, bytes], message: str, branch: str = "main") -> Commit:
        """A commit whose tree is `files`, on top of `branch` (created if new)."""
        parent = self.branches.get(branch)
        seed = json.dumps([self.type, self.id, parent, message, sorted((p, git_blob_sha(c)) for p, c in files.items())])
        commit = Commit(hashlib.sha1(f"{seed}{next(_COMMIT_COUNTER)}".encode()).hexdigest(), parent, message, dict(files))
        self.commits[commit.oid] = commit
        self.branches[branch] = commit.oid
        self.last_modified = now_iso()
        if self.type == "space" and self.stage != "PAUSED":
            self.build()
        return commit

    def build(self) -> None:
        """A Space (re)starts from its main branch; here the build is instant."""
        self.stage = "RUNNING" if set(self.files()) - {".gitattributes"} else "NO_APP_FILE"

    def runtime(self) -> dict:
        """A Space's runtime as /api/spaces/{id}/runtime answers it: hardware is current only while running."""
        return {
            "stage": self.stage,
            "hardware": {"current": self.hardware if self.stage == "RUNNING" else None, "requested": self.hardware},
            "gcTimeout": self.sleep_time,
            "storage": None,
            "devMode": False,
        }


class Hub:
    """The repos of one local Hub, its one user, and the bearer token it demands (None: any or none)."""

    def __init__(self, token: str | None = None, user: str = "tester"):
        self.token = token
        self.user = user
        self.repos: dict[tuple[str, str], Repo] = {}
        self.requests: list[tuple[str, str]] = []
        self.url = ""  # set by the server once it listens

    def repo(self, repo_id: str, repo_type: str = "model") -> Repo:
        if (repo_type, repo_id) not in self.repos:
            raise HubError(404, "Repository not found", "RepoNotFound")
        return self.repos[(repo_type, repo_id)]

    def create_repo(
        self, repo_id: str, repo_type: str = "model", *, private: bool = False, sdk: str | None = None, **space
    ) -> Repo:
        """A new repo holding the Hub's first commit; a Space also takes `hardware` and `sleep_time`."""
        if (repo_type, repo_id) in self.repos:
            raise HubError(409, f"You already created this {repo_type} repo")
        repo = Repo(repo_id, repo_type, private)
        if repo_type == "space":
            repo.sdk = sdk
            repo.hardware = space.get("hardware") or "cpu-basic"
            repo.sleep_time = space.get("sleep_time")
        repo.add_commit({".gitattributes": GITATTRIBUTES}, "initial commit")
        self.repos[(repo_type, repo_id)] = repo
        return repo

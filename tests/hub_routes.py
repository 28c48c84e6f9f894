"""The local Hub's routes, each answering (status, headers, body) as the Hub does for the same request:
the paths, headers and payloads are those huggingface_hub 2.x sends and reads."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from urllib.parse import unquote

import yaml

from tests.hub_repos import Hub, HubError, Repo, git_blob_sha, now_iso

Answer = tuple[int, dict[str, str], bytes]
TYPES = {"models": "model", "datasets": "dataset", "spaces": "space"}
FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---", re.DOTALL)


def route(hub: Hub, method: str, path: str, query: dict[str, list[str]], body: bytes, authorization: str | None) -> Answer:
    parts = [unquote(part) for part in path.strip("/").split("/")]  # split first: a quoted revision keeps its slashes
    if parts[0] == "api" and len(parts) >= 4 and parts[1] in TYPES:
        _authorize(hub, authorization, repo_route=True)
        repo = hub.repo(f"{parts[2]}/{parts[3]}", TYPES[parts[1]])
        action, args = (parts[4], parts[5:]) if len(parts) > 4 else ("", [])
        handler = REPO_ROUTES.get((method, action)) or (SPACE_ROUTES.get((method, action)) if repo.type == "space" else None)
        if handler:
            return handler(hub, repo, args, query, body)
    elif parts[0] == "api" and (handler := HUB_ROUTES.get((method, "/".join(parts[1:])))):
        _authorize(hub, authorization, repo_route=False)
        return handler(hub, body)
    elif "resolve" in parts and method in ("GET", "HEAD"):
        return _resolve(hub, parts, authorization)
    raise HubError(404, "Sorry, we can't find the page you are looking for.")


def _authorize(hub: Hub, authorization: str | None, repo_route: bool) -> None:
    if hub.token is None or authorization == f"Bearer {hub.token}":
        return
    if authorization is None and repo_route:
        raise HubError(401, "Repository not found", "RepoNotFound")  # how the Hub hides a private repo
    raise HubError(401, "Invalid credentials in Authorization header")


def _json(value: object, status: int = 200) -> Answer:
    return status, {"Content-Type": "application/json"}, json.dumps(value).encode()


def _resolve(hub: Hub, parts: list[str], authorization: str | None) -> Answer:
    """`/{datasets/|spaces/}ns/name/resolve/{revision}/{path}`: a regular file, with the headers the client checks."""
    at = parts.index("resolve")
    owner = parts[:at]
    repo_type = TYPES[owner.pop(0)] if owner and owner[0] in ("datasets", "spaces") else "model"
    if len(owner) != 2 or len(parts) < at + 3:
        raise HubError(404, "Sorry, we can't find the page you are looking for.")
    _authorize(hub, authorization, repo_route=True)
    commit = hub.repo("/".join(owner), repo_type).commit_at(parts[at + 1])
    filename = "/".join(parts[at + 2 :])
    if filename not in commit.files:
        raise HubError(404, "Entry not found", "EntryNotFound", {"X-Repo-Commit": commit.oid})
    content = commit.files[filename]
    headers = {"X-Repo-Commit": commit.oid, "ETag": f'"{git_blob_sha(content)}"', "Content-Type": "application/octet-stream"}
    return 200, headers, content


def _whoami(hub: Hub, body: bytes) -> Answer:
    auth = {"type": "access_token", "accessToken": {"displayName": "local-hub", "role": "write"}}
    return _json({"type": "user", "name": hub.user, "fullname": hub.user, "orgs": [], "auth": auth})


def _create(hub: Hub, body: bytes) -> Answer:
    asked = json.loads(body)
    repo_type = asked.get("type") or "model"
    if repo_type == "space" and not asked.get("sdk"):
        raise HubError(400, "a Space needs an sdk")
    repo_id = f"{asked.get('organization') or hub.user}/{asked['name']}"
    if (repo_type, repo_id) in hub.repos:
        # The Hub's 409 names the existing repo's url: create_repo(exist_ok=True) reads it from the body.
        existing = hub.repos[(repo_type, repo_id)]
        return _json({"error": f"You already created this {repo_type} repo", "url": f"{hub.url}/{existing.url_path}"}, 409)
    repo = hub.create_repo(
        repo_id,
        repo_type,
        private=asked.get("visibility") == "private",
        sdk=asked.get("sdk"),
        hardware=asked.get("hardware"),
        sleep_time=asked.get("sleepTimeSeconds"),
    )
    _set_keys(repo.variables, asked.get("variables") or [])
    _set_keys(repo.secrets, asked.get("secrets") or [])
    return _json({"url": f"{hub.url}/{repo.url_path}", "name": repo.id})


def _validate_yaml(hub: Hub, body: bytes) -> Answer:
    """The README's front matter must be a YAML mapping; errors come back as the Hub lists them."""
    front = FRONT_MATTER.match(json.loads(body)["content"])
    try:
        metadata = yaml.safe_load(front.group(1)) if front else {}
    except yaml.YAMLError as error:
        return _json({"errors": [{"message": f"invalid YAML: {error}"}], "warnings": []}, status=400)
    if not isinstance(metadata, dict | None):
        return _json({"errors": [{"message": "metadata must be a mapping"}], "warnings": []}, status=400)
    return _json({"errors": [], "warnings": []})


def _info(hub: Hub, repo: Repo, args: list[str], query: dict, body: bytes) -> Answer:
    commit = repo.commit_at(args[0] if args else "main")
    info = {
        "id": repo.id,
        "author": repo.id.split("/")[0],
        "sha": commit.oid,
        "lastModified": repo.last_modified,
        "private": repo.private,
        "disabled": False,
        "gated": False,
        "tags": [],
        "siblings": [{"rfilename": path} for path in sorted(commit.files)],
    }
    if repo.type == "space":
        info |= {"sdk": repo.sdk, "runtime": repo.runtime(), "subdomain": repo.id.replace("/", "-")}
    return _json(info)


def _tree(hub: Hub, repo: Repo, args: list[str], query: dict, body: bytes) -> Answer:
    """Files and folders under a path at a revision, one page (no Link header)."""
    revision, folder = args[0], "/".join(args[1:])
    files = repo.commit_at(revision).files
    base = f"{folder}/" if folder else ""
    paths = [path for path in files if path.startswith(base)]
    if folder and not paths:
        raise HubError(404, f"{folder} does not exist on {revision}", "EntryNotFound")
    folders = {"/".join(p.split("/")[:depth]) for p in paths for depth in range(base.count("/") + 1, p.count("/") + 1)}
    entries = [{"type": "directory", "oid": hashlib.sha1(f.encode()).hexdigest(), "size": 0, "path": f} for f in sorted(folders)]
    entries += [{"type": "file", "oid": git_blob_sha(files[p]), "size": len(files[p]), "path": p} for p in sorted(paths)]
    if query.get("recursive", ["false"])[0].lower() not in ("true", "1"):
        entries = [entry for entry in entries if "/" not in entry["path"][len(base) :]]
    return _json(entries)


def _preupload(hub: Hub, repo: Repo, args: list[str], query: dict, body: bytes) -> Answer:
    """Every file is a regular blob; `oid` is the file already there, so the client skips unchanged ones."""
    files = repo.commit_at(args[0]).files
    asked = [entry["path"] for entry in json.loads(body)["files"]]
    answer = [
        {"path": p, "uploadMode": "regular", "shouldIgnore": False, "oid": git_blob_sha(files[p]) if p in files else None}
        for p in asked
    ]
    return _json({"files": answer})


def _commit(hub: Hub, repo: Repo, args: list[str], query: dict, body: bytes) -> Answer:
    """The NDJSON commit: a header line, then one line per file added (base64) or deleted."""
    branch = args[0]
    if branch not in repo.branches:
        raise HubError(404, f"Invalid rev id: {branch}", "RevisionNotFound")
    if "create_pr" in query:
        raise HubError(400, "pull requests are not served by this local Hub")
    header, *operations = [json.loads(line) for line in body.splitlines() if line.strip()]
    head = repo.commit_at(branch)
    if header["value"].get("parentCommit") not in (None, head.oid):
        raise HubError(412, "A commit has happened since. Please refresh and try again.")
    files = dict(head.files)
    for operation in operations:
        key, value = operation["key"], operation["value"]
        if key == "file":
            files[value["path"]] = base64.b64decode(value["content"])
        elif key == "deletedFile" and value["path"] in files:
            del files[value["path"]]
        elif key == "deletedFile":
            raise HubError(404, "A file with this name doesn't exist", "EntryNotFound")
        elif key == "deletedFolder":
            files = {p: c for p, c in files.items() if not p.startswith(value["path"].rstrip("/") + "/")}
        else:
            raise HubError(400, f"{key!r} operations are not served by this local Hub: it stores regular files only")
    commit = repo.add_commit(files, header["value"]["summary"], branch)
    commit_url = f"{hub.url}/{repo.url_path}/commit/{commit.oid}"
    return _json({"success": True, "commitOid": commit.oid, "commitUrl": commit_url, "hookOutput": "", "pullRequestUrl": None})


def _duplicate(hub: Hub, repo: Repo, args: list[str], query: dict, body: bytes) -> Answer:
    """A copy with the whole history; a Space's copy takes hardware, sleep time, variables and secrets from the request."""
    asked = json.loads(body)
    private = asked["visibility"] == "private" if "visibility" in asked else repo.private
    copy = hub.create_repo(asked["repository"], repo.type, private=private, sdk=repo.sdk, hardware=asked.get("hardware"))
    copy.commits, copy.branches = dict(repo.commits), dict(repo.branches)
    if copy.type == "space":
        copy.sleep_time = asked.get("sleepTimeSeconds")
        _set_keys(copy.variables, asked.get("variables") or [])
        _set_keys(copy.secrets, asked.get("secrets") or [])
        copy.build()
    return _json({"url": f"{hub.url}/{copy.url_path}"})


def _set_keys(store: dict[str, dict], items: list[dict]) -> None:
    for item in items:
        store[item["key"]] = {"value": item["value"], "description": item.get("description"), "updatedAt": now_iso()}


def _runtime(hub: Hub, repo: Repo, args: list[str], query: dict, body: bytes) -> Answer:
    return _json(repo.runtime())


def _hardware(hub: Hub, repo: Repo, args: list[str], query: dict, body: bytes) -> Answer:
    asked = json.loads(body)
    repo.hardware = asked["flavor"]
    repo.sleep_time = asked.get("sleepTimeSeconds", repo.sleep_time)
    repo.build()  # new hardware restarts the Space
    return _json(repo.runtime())


def _sleeptime(hub: Hub, repo: Repo, args: list[str], query: dict, body: bytes) -> Answer:
    repo.sleep_time = json.loads(body)["seconds"]
    return _json(repo.runtime())


def _pause(hub: Hub, repo: Repo, args: list[str], query: dict, body: bytes) -> Answer:
    repo.stage = "PAUSED"
    return _json(repo.runtime())


def _restart(hub: Hub, repo: Repo, args: list[str], query: dict, body: bytes) -> Answer:
    repo.build()
    return _json(repo.runtime())


def _variables(hub: Hub, repo: Repo, args: list[str], query: dict, body: bytes) -> Answer:
    _set_keys(repo.variables, [json.loads(body)])
    return _json(repo.variables)


def _secrets(hub: Hub, repo: Repo, args: list[str], query: dict, body: bytes) -> Answer:
    _set_keys(repo.secrets, [json.loads(body)])
    return _json({})


HUB_ROUTES = {("GET", "whoami-v2"): _whoami, ("POST", "repos/create"): _create, ("POST", "validate-yaml"): _validate_yaml}
REPO_ROUTES = {
    ("GET", ""): _info,
    ("GET", "revision"): _info,
    ("GET", "tree"): _tree,
    ("POST", "preupload"): _preupload,
    ("POST", "commit"): _commit,
    ("POST", "duplicate"): _duplicate,
}
SPACE_ROUTES = {
    ("GET", "runtime"): _runtime,
    ("POST", "hardware"): _hardware,
    ("POST", "sleeptime"): _sleeptime,
    ("POST", "pause"): _pause,
    ("POST", "restart"): _restart,
    ("POST", "variables"): _variables,
    ("POST", "secrets"): _secrets,
}

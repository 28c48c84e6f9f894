"""The judge's reference pool from a Hub dataset, at a revision resolved to its commit, downloaded once
into the Hub cache (HF_HOME). The pool's format is watercolour_shared.reference_pool's."""

from __future__ import annotations

import logging
import re
from pathlib import Path

from watercolour_shared.reference_pool import ReferencePool, ReferencePoolError

COMMIT = re.compile(r"[0-9a-f]{40}")

log = logging.getLogger(__name__)


def download_reference_pool(
    repo_id: str, revision: str, *, endpoint: str | None = None, token: str | None = None
) -> ReferencePool:
    """The endpoint and token default to huggingface_hub's own (HF_ENDPOINT, HF_TOKEN or a saved login).
    The origin names the commit loaded, so reports say which pool a run faced even when `revision` is
    a branch, which the next run may find moved."""
    asked = f"the reference pool {repo_id}@{revision}"
    folder, commit = _download(asked, repo_id, revision, endpoint, token)
    try:
        pool = ReferencePool.from_folder(folder)
    except ReferencePoolError as error:
        raise ReferencePoolError(f"{asked} (commit {commit}): {error}") from None
    pool.origin = f"{repo_id}@{commit}"
    if not COMMIT.fullmatch(revision):
        pool.origin += f" (from {revision!r})"
        log.warning("%s is not pinned: it loaded commit %s; pin it with WATERCOLOUR_POOL_REVISION=%s", asked, commit, commit)
    return pool


def _download(asked: str, repo_id: str, revision: str, endpoint: str | None, token: str | None) -> tuple[Path, str]:
    """The snapshot folder and the commit `revision` resolved to; Hub failures become a ReferencePoolError naming `asked`."""
    from huggingface_hub import HfApi, snapshot_download
    from huggingface_hub.errors import EntryNotFoundError, RepositoryNotFoundError, RevisionNotFoundError, RevisionResolutionError

    try:
        commit = HfApi(endpoint=endpoint, token=token).resolve_revision(repo_id, repo_type="dataset", revision=revision)
        folder = snapshot_download(repo_id, repo_type="dataset", revision=commit, endpoint=endpoint, token=token)
    except RepositoryNotFoundError as error:
        status = error.response.status_code
        raise ReferencePoolError(f"{asked}: no such dataset on the Hub, or the token cannot read it (HTTP {status})") from error
    except RevisionNotFoundError as error:
        raise ReferencePoolError(f"{asked}: the dataset has no revision {revision!r}") from error
    except (OSError, EntryNotFoundError, RevisionResolutionError) as error:
        raise ReferencePoolError(f"{asked}: could not be downloaded ({type(error).__name__}: {error})") from error
    return Path(folder), commit.resolved

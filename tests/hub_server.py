"""A Hugging Face Hub on loopback: real HTTP answering the requests huggingface_hub makes for this project
(downloads, repo creation, small-file commits, Space settings), so Hub code runs the real client with
`endpoint=hub.url`. State: tests/hub_repos.py; routes: tests/hub_routes.py.

Repo ids are always `namespace/name`. Every file is stored as a regular git blob: the preupload answer
never asks for LFS or Xet, as the Hub answers for small text files.
"""

from __future__ import annotations

import threading
from urllib.parse import parse_qs, urlsplit

from tests.hub_repos import Hub, HubError
from tests.hub_routes import route
from watercolour_harness.scripted_http import LoopbackServer, QuietHandler


class HubServer(Hub, LoopbackServer):
    """`with HubServer() as hub:` a Hub at `hub.url`; `token=` makes it answer 401 without that bearer token.

    `hub.requests` lists each (method, path) received; `hub.repo(id, type)` gives a repo's files, Space
    variables, secrets, hardware and stage; `hub.create_repo` and `Repo.add_commit` seed it directly.
    """

    def __init__(self, token: str | None = None, user: str = "tester"):
        super().__init__(token, user)
        lock = threading.Lock()  # requests change the repos one at a time
        hub = self

        class Handler(QuietHandler):
            def _answer(self, method: str) -> None:
                parts = urlsplit(self.path)
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                with lock:
                    hub.requests.append((method, parts.path))
                    try:
                        answer = route(hub, method, parts.path, parse_qs(parts.query), body, self.headers.get("authorization"))
                    except HubError as error:
                        answer = error.answer()
                    except Exception as error:  # noqa: BLE001 - a malformed request gets a 500, as from the Hub
                        answer = HubError(500, f"the local Hub failed: {error!r}").answer()
                status, headers, payload = answer
                self.send_json(status, payload, headers, write=method != "HEAD")

            def do_GET(self):  # noqa: N802 - the http.server API
                self._answer("GET")

            def do_HEAD(self):  # noqa: N802
                self._answer("HEAD")

            def do_POST(self):  # noqa: N802
                self._answer("POST")

        LoopbackServer.__init__(self, Handler)  # Hub has its own __init__ above

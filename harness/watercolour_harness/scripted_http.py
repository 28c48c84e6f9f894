"""A real HTTP server on loopback that answers from a script: the failure codes of a service we cannot reach."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class QuietHandler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        """Quiet: a test's output is its assertions, a bench's its record."""

    def send_json(self, status: int, body: object, headers: dict[str, str] | None = None, write: bool = True) -> None:
        """One whole answer: `body` as JSON (bytes and text are sent as they are), with its length; `write=False`
        sends the headers alone (a HEAD)."""
        payload = body if isinstance(body, bytes) else (body if isinstance(body, str) else json.dumps(body)).encode()
        self.send_response(status)
        headers = headers or {}
        if not any(name.lower() == "content-type" for name in headers):
            headers = {"content-type": "application/json", **headers}
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        if write:
            self.wfile.write(payload)


class LoopbackServer:
    """An HTTP server of the caller's handler class on loopback (a free port unless `port` says), served from a thread
    from `start()` (or the `with` block) until `stop()`: the one way the tests and benches stand up a service."""

    def __init__(self, handler: type[BaseHTTPRequestHandler], port: int = 0):
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def start(self):
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread.is_alive():
            self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


class ScriptedServer(LoopbackServer):
    """Answers each POST with the next (status, body, delay_s[, headers]) of `script`; the last one repeats. A body
    that is a function is called with the request's JSON and answers with what it returns. A GET of a path in `get`
    answers its (status, body); any other GET a model list, as chat-completions servers answer."""

    def __init__(self, script: list[tuple], get: dict[str, tuple[int, object]] | None = None):
        self.script = list(script)
        self.requests: list[dict] = []
        server = self

        class Handler(QuietHandler):
            def do_POST(self):  # noqa: N802 - the http.server API
                length = int(self.headers.get("content-length", 0))
                request = json.loads(self.rfile.read(length) or b"{}")
                seen = {"path": self.path, "body": request, "headers": dict(self.headers), "at": time.monotonic()}
                server.requests.append(seen)
                status, body, delay, *extra = server.script[min(len(server.requests) - 1, len(server.script) - 1)]
                time.sleep(delay)
                self.send_json(status, body(request) if callable(body) else body, extra[0] if extra else None)

            def do_GET(self):  # noqa: N802 - not scripted
                self.send_json(*(get or {}).get(self.path, (200, {"object": "list", "data": [{"id": "scripted"}]})))

        super().__init__(Handler)

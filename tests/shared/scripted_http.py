"""A real HTTP server on loopback that answers from a script: the failure codes of a service we cannot reach."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class QuietHandler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        """Quiet: a test's output is its assertions."""


class LoopbackServer:
    """An HTTP server of the caller's handler class on a free loopback port, served from a thread from `start()` (or
    the `with` block) until `stop()`: the one way the tests stand up a service we cannot reach."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]):
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
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
    """Answers each request with the next (status, body, delay_s[, headers]) of `script`; the last one repeats."""

    def __init__(self, script: list[tuple]):
        self.script = list(script)
        self.requests: list[dict] = []
        server = self

        class Handler(QuietHandler):
            def do_POST(self):  # noqa: N802 - the http.server API
                length = int(self.headers.get("content-length", 0))
                server.requests.append(
                    {
                        "path": self.path,
                        "body": json.loads(self.rfile.read(length) or b"{}"),
                        "headers": dict(self.headers),
                        "at": time.monotonic(),
                    }
                )
                status, body, delay, *extra = server.script[min(len(server.requests) - 1, len(server.script) - 1)]
                time.sleep(delay)
                payload = (body if isinstance(body, str) else json.dumps(body)).encode()
                self.send_response(status)
                for name, value in (extra[0] if extra else {}).items():
                    self.send_header(name, value)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def do_GET(self):  # noqa: N802 - a model list, as chat-completions servers answer; not scripted
                payload = json.dumps({"object": "list", "data": [{"id": "scripted"}]}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        super().__init__(Handler)

"""Serve one of the pages on the loopback (or a chosen host) and say where."""

from __future__ import annotations

import socket
import sys

import uvicorn
from starlette.types import ASGIApp

from watercolour_studio.exit_codes import EXIT_ERROR, EXIT_OK


def serve(app: ASGIApp, host: str, port: int, what: str) -> int:
    """Listens first, so `--port 0` can print the port it got, and a client that connects at once waits in the backlog."""
    listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    shown = f"[{host}]" if ":" in host else host
    try:
        listener.bind((host, port))
    except OSError as error:  # a port in use, a port below 1024, an address this machine does not have
        listener.close()
        print(f"watercolour: cannot listen on {shown}:{port}: {error.strerror}; try --port 0 for a free port", file=sys.stderr)
        return EXIT_ERROR
    listener.listen(128)
    print(f"{what}: http://{shown}:{listener.getsockname()[1]}/", flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[listener])
    return EXIT_OK

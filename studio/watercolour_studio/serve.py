"""Serve one of the pages on the loopback (or a chosen host) and say where."""

from __future__ import annotations

import socket

import uvicorn
from fastapi import FastAPI


def serve(app: FastAPI, host: str, port: int, what: str) -> int:
    """Listens first, so `--port 0` can print the port it got, and a client that connects at once waits in the backlog."""
    listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, port))
    listener.listen(128)
    shown = f"[{host}]" if ":" in host else host
    print(f"{what}: http://{shown}:{listener.getsockname()[1]}/", flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[listener])
    return 0

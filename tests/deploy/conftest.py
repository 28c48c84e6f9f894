"""The `watercolour` command against a local Hub (tests/hub_server.py) speaking the Hub's HTTP API."""

from __future__ import annotations

import pytest

from tests.hub_server import HubServer
from watercolour_shared.cli import main

TOKEN = "hf_local_test_token"


@pytest.fixture
def hub(monkeypatch):
    with HubServer(token=TOKEN) as server:
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        monkeypatch.setenv("HF_TOKEN", TOKEN)
        yield server


@pytest.fixture
def watercolour(capsys):
    """Run `watercolour ARGS...` in this process; answer (exit code, stdout, stderr)."""

    def run(*args: str) -> tuple[int, str, str]:
        code = main(list(args))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run

"""The scoring service as a real process over real HTTP (heuristic backend)."""

import asyncio
import json
import os
import socket
import struct
import subprocess
import sys
import zlib

import httpx
import pytest

from tests.conftest import fresh_seed
from tests.pictures import b64, blank_sheet, hard_blob, soft_wash

AUTH = {"authorization": "Bearer test-token"}


def header_only_png(width: int, height: int) -> bytes:
    """A valid PNG header announcing a huge image, with almost no pixel data behind it."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00")) + chunk(b"IEND", b"")


def post(url: str, body: dict, headers=AUTH) -> httpx.Response:
    return httpx.post(f"{url}/score", json=body, headers=headers, timeout=60)


def test_health_and_ready(scorer_url):
    health = httpx.get(f"{scorer_url}/health").json()
    assert health["backend"] == "heuristic" and health["ready"] is True
    assert httpx.get(f"{scorer_url}/ready").status_code == 200


def test_importing_the_server_builds_nothing():
    """A backend the settings refuse does not stop an import: the app is built when the server starts."""
    env = {**os.environ, "WATERCOLOUR_SCORER_BACKEND": "no-such-backend"}
    code = "import watercolour_scorer.server as server; print(type(server.app).__name__)"
    imported = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert imported.returncode == 0, imported.stderr[-2000:]
    assert imported.stdout.strip() == "BuiltAtStartup"


def test_score_contract(scorer_url):
    answer = post(scorer_url, {"images": [b64(soft_wash(11)), b64(blank_sheet())], "prompt": "a peach hibiscus"})
    assert answer.status_code == 200
    body = answer.json()
    assert body["backend"] == "heuristic" and body["model"] == "watercolour-heuristic"
    assert body["normalisation"] == "1/(1+exp(-mu/4))" and body["prompt"] == "a peach hibiscus"
    wash, blank = body["scores"]
    assert wash["score"] > blank["score"]
    assert {"mu", "sigma", "score", "cached"} <= wash.keys()


def test_default_prompt_is_the_recipes(scorer_url):
    assert post(scorer_url, {"images": [b64(soft_wash(12))]}).json()["prompt"] == "a loose watercolour flower"


def test_multipart_upload(scorer_url):
    files = [("images", ("a.png", soft_wash(13), "image/png")), ("images", ("b.png", hard_blob(), "image/png"))]
    answer = httpx.post(f"{scorer_url}/score", files=files, data={"prompt": "a rose"}, headers=AUTH, timeout=60)
    assert answer.status_code == 200
    assert len(answer.json()["scores"]) == 2 and answer.json()["prompt"] == "a rose"


def test_a_repeat_painting_is_not_scored_twice(scorer_url):
    painting = b64(soft_wash(99))
    before = httpx.get(f"{scorer_url}/health").json()["batching"]["images"]
    first = post(scorer_url, {"images": [painting], "prompt": "cache check"}).json()["scores"][0]
    second = post(scorer_url, {"images": [painting], "prompt": "cache check"}).json()["scores"][0]
    after = httpx.get(f"{scorer_url}/health").json()["batching"]["images"]
    assert (first["cached"], second["cached"]) in {(False, True), (True, True)}
    assert second["mu"] == first["mu"]
    assert after - before <= 1


def test_token_is_required_when_configured(scorer_url):
    body = {"images": [b64(soft_wash(14))]}
    assert post(scorer_url, body, headers={}).status_code == 401
    assert post(scorer_url, body, headers={"authorization": "Bearer wrong"}).status_code == 401
    assert post(scorer_url, body).status_code == 200


BAD = {
    "not a png": ({"images": [b64(b"GIF89a not a png at all")]}, 422),
    "not base64": ({"images": ["%%% not base64 %%%"]}, 422),
    "20000x20000 png": ({"images": [b64(header_only_png(20000, 20000))]}, 413),
    "truncated png": ({"images": [b64(soft_wash(15)[:300])]}, 422),
    "empty batch": ({"images": []}, 422),
    "500 images": ({"images": [b64(blank_sheet())] * 500}, 422),
    "1 MB prompt": ({"images": [b64(blank_sheet())], "prompt": "p" * 1_000_000}, 422),
}


@pytest.mark.parametrize("case", BAD)
def test_bad_input_is_a_clear_4xx_and_the_service_stays_healthy(scorer_url, case):
    body, status = BAD[case]
    answer = post(scorer_url, body)
    assert answer.status_code == status
    assert answer.json()["detail"]
    assert post(scorer_url, {"images": [b64(soft_wash(16))]}).status_code == 200


def test_a_body_over_the_limit_is_refused_before_it_is_read(scorer_url):
    host, port = scorer_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(
            b"POST /score HTTP/1.1\r\nHost: scorer\r\nContent-Type: application/json\r\n"
            b"Authorization: Bearer test-token\r\nContent-Length: 209715200\r\n\r\n"
        )
        status_line = connection.recv(200).split(b"\r\n", 1)[0]
    assert status_line == b"HTTP/1.1 413 Request Entity Too Large"


async def test_concurrent_requests_are_batched_into_fewer_passes(scorer_url):
    base = fresh_seed()
    before = httpx.get(f"{scorer_url}/health").json()["batching"]
    async with httpx.AsyncClient(base_url=scorer_url, headers=AUTH, timeout=60) as http:
        answers = await asyncio.gather(*(http.post("/score", json={"images": [b64(soft_wash(base + i))]}) for i in range(24)))
    after = httpx.get(f"{scorer_url}/health").json()["batching"]
    assert [a.status_code for a in answers] == [200] * 24
    assert after["images"] - before["images"] == 24
    assert after["passes"] - before["passes"] < 24
    assert json.loads(answers[0].content)["scores"][0]["cached"] is False

"""`watercolour pool generate` against a local chat-completions server and the real environment."""

import base64
import os

import pytest

from tests.studio.conftest import PAINTINGS, SUBJECT, chat, fenced, generate, watercolour
from tests.studio.film import BARE_PRIMITIVE, REFUSAL
from watercolour_harness.scripted_http import ScriptedServer
from watercolour_shared.env_client import EnvHttpClient
from watercolour_shared.paint import paint_fraction
from watercolour_shared.prompts import chat_messages
from watercolour_studio.durable import read_lines

SLOW_DOWN = (429, {"error": "rate limited"}, 0, {"Retry-After": "0"})


async def test_only_paintings_that_pass_the_gate_are_kept_and_a_rerun_resumes(tmp_path, server_url):
    script = [(200, chat(fenced(PAINTINGS[4])), 0), (200, chat(REFUSAL), 0), SLOW_DOWN, (200, chat(fenced(BARE_PRIMITIVE)), 0)]
    script += [(200, chat(fenced(PAINTINGS[5])), 0), (200, chat(PAINTINGS[2]), 0)]
    with ScriptedServer(script) as model:
        first = generate(tmp_path, model.url, server_url, "--count", "2", "--seed", "40")
        asked_first = len(model.requests)
        second = generate(tmp_path, model.url, server_url, "--count", "3", "--seed", "40")
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert [line.split(":")[0] for line in first.stdout.splitlines()[:4]] == [f"attempt {n}" for n in range(4)]
    assert "failed the gate: no_sketch" in first.stdout and "failed the gate: bare_p5_primitive" in first.stdout
    assert asked_first == 5 and len(model.requests) == 6  # the 429 was retried; the rerun asked once more
    rows = read_lines(tmp_path / "metadata.jsonl")
    assert [row["file_name"] for row in rows] == ["images/gen-00000.png", "images/gen-00003.png", "images/gen-00004.png"]
    assert {row["subject"] for row in rows} == {SUBJECT} and {row["generator"] for row in rows} == {"scripted-painter"}
    assert [row["seed"] for row in rows] == [40, 43, 44]
    assert [request["body"]["seed"] for request in model.requests] == [40, 41, 42, 42, 43, 44]
    assert [row["attempt"] for row in read_lines(tmp_path / "attempts.jsonl")] == [0, 1, 2, 3, 4]
    for row, code in zip(rows, [PAINTINGS[4], PAINTINGS[5], PAINTINGS[2]], strict=True):
        png = (tmp_path / row["file_name"]).read_bytes()
        assert (tmp_path / row["source"]).read_text() == code.strip()  # the code the gate found in the reply
        assert row["paint_coverage"] == round(paint_fraction(png), 4)
        async with EnvHttpClient(server_url) as env:  # the same code and seed render the same painting
            assert png == base64.b64decode((await env.render(code, seed=row["seed"])).png_base64)


def test_the_model_is_asked_with_the_policys_own_prompts(tmp_path, server_url):
    with ScriptedServer([(200, chat(fenced(PAINTINGS[3])), 0)]) as model:
        done = generate(tmp_path, model.url, server_url, "--count", "1", "--temperature", "0.7")
    assert done.returncode == 0, done.stderr
    [request] = model.requests
    assert request["path"] == "/chat/completions"
    assert request["body"]["model"] == "scripted-painter" and request["body"]["temperature"] == 0.7
    assert request["body"]["messages"] == chat_messages(SUBJECT)


def test_the_token_goes_to_the_endpoint_and_a_refusal_stops_the_run(tmp_path, server_url):
    env = {**os.environ, "PAINTER_TOKEN": "secret-token"}
    with ScriptedServer([(401, {"error": "invalid token"}, 0)]) as model:
        done = watercolour(
            "pool", "generate", str(tmp_path), "--subject", SUBJECT, "--model", "m", "--base-url", model.url,
            "--token-env", "PAINTER_TOKEN", "--env-url", server_url, "--count", "1", env=env,
        )  # fmt: skip
    assert done.returncode == 2
    assert "HTTP 401" in done.stderr and "rerun the same command to resume" in done.stderr
    assert len(model.requests) == 1 and model.requests[0]["headers"]["authorization"] == "Bearer secret-token"
    assert not (tmp_path / "metadata.jsonl").exists()


def test_an_environment_must_be_named(tmp_path):
    """Studio renders through a running environment only: it does not install one."""
    done = watercolour("pool", "generate", str(tmp_path), "--subject", SUBJECT, "--model", "m", "--count", "1")
    assert done.returncode == 2 and "--env-url" in done.stderr
    assert not any(tmp_path.iterdir())


def test_the_generated_folder_holds_a_painting_and_its_code_per_row(generated):
    rows = read_lines(generated / "metadata.jsonl")
    assert len(rows) == len(PAINTINGS)
    for row, code in zip(rows, PAINTINGS, strict=True):
        assert paint_fraction((generated / row["file_name"]).read_bytes()) == pytest.approx(row["paint_coverage"], abs=1e-4)
        assert (generated / row["source"]).read_text() == code.strip()

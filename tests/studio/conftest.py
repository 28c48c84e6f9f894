"""The studio's fixtures: a real film made by a real environment, the studio's commands as real
processes, and Debian's Chromium driven by Playwright."""

from __future__ import annotations

import shutil
import subprocess
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.async_api import async_playwright

from tests.conftest import ROOT
from tests.studio.film import GOOD, step_groups, write_plan, write_step
from watercolour_harness.scripted_http import ScriptedServer

WATERCOLOUR = str(ROOT / ".venv" / "bin" / "watercolour")
FILM_STEPS = 4
SUBJECT = "a peach hibiscus"
# Six different paintings a model might send back: the project's sketches and two recoloured washes.
PAINTINGS = [*GOOD, GOOD[3].replace("#b83b5e", "#3b5eb8"), GOOD[3].replace("#b83b5e", "#5e9b3b")]


def watercolour(*args: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([WATERCOLOUR, *args], capture_output=True, text=True, timeout=timeout, env=env, check=False)


@contextmanager
def serving(*args: str, env: dict | None = None):
    """A studio page as its own process; yields the process and its URL, read from the line it prints first."""
    process = subprocess.Popen([WATERCOLOUR, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = process.stdout.readline()
        if "http://" not in line:
            raise RuntimeError(f"`watercolour {' '.join(args)}` did not start: {line}{process.stderr.read()[-3000:]}")
        yield process, line[line.index("http://") :].strip().rstrip("/")
    finally:
        process.terminate()
        process.wait(timeout=15)


@contextmanager
def served(*args: str, env: dict | None = None):
    with serving(*args, env=env) as (_, url):
        yield url


@pytest.fixture(scope="session")
async def film(full_reward_env_url, tmp_path_factory) -> Path:
    """Four steps of two groups of four, one more real sketch per group each step: the reward rises."""
    run_dir = tmp_path_factory.mktemp("run")
    write_plan(run_dir)
    for step in range(1, FILM_STEPS + 1):
        await write_step(full_reward_env_url, run_dir, step, step_groups(good=step))
    return run_dir


@pytest.fixture
def film_copy(film, tmp_path) -> Path:
    """The film for a test that changes it."""
    return Path(shutil.copytree(film, tmp_path / "run"))


@pytest.fixture(scope="session")
def tiny_policy(tmp_path_factory) -> Path:
    """A random policy: what it writes never passes the gate, so every painting of it fails."""
    from tests.trainer.conftest import corpus  # torch and transformers, only for the tests that paint with a model
    from watercolour_harness.tiny_policy import SIZES, build_policy, build_tokenizer, save_policy

    tokenizer = build_tokenizer(corpus())
    return save_policy(build_policy(tokenizer, SIZES["tiny"]), tokenizer, tmp_path_factory.mktemp("tiny"))


def chat(content: str) -> dict:
    """A chat-completions answer, as any OpenAI-compatible endpoint sends it."""
    return {"object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}


def fenced(code: str) -> str:
    return f"Here is the painting:\n```javascript\n{code}\n```"


def generate(folder: Path, model_url: str, env_url: str, *flags: str) -> subprocess.CompletedProcess:
    return watercolour(
        "pool",
        "generate",
        str(folder),
        "--subject",
        SUBJECT,
        "--model",
        "scripted-painter",
        "--base-url",
        model_url,
        "--env-url",
        env_url,
        "--concurrency",
        "1",
        *flags,
    )


@pytest.fixture(scope="session")
def generated(server_url, tmp_path_factory) -> Path:
    """Six paintings made by `pool generate` from a scripted model through the real environment."""
    folder = tmp_path_factory.mktemp("generated")
    with ScriptedServer([(200, chat(fenced(code)), 0) for code in PAINTINGS]) as model:
        done = generate(folder, model.url, server_url, "--count", str(len(PAINTINGS)))
    assert done.returncode == 0, done.stderr
    return folder


@pytest.fixture
def generated_copy(generated, tmp_path) -> Path:
    return Path(shutil.copytree(generated, tmp_path / "generated"))


@pytest.fixture(scope="session")
async def browser():
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--disable-gpu"])
        yield launched
        await launched.close()


@pytest.fixture
async def page(browser):
    context = await browser.new_context(
        viewport={"width": 1400, "height": 1000}, permissions=["clipboard-read", "clipboard-write"]
    )
    opened = await context.new_page()
    errors = []
    opened.on("pageerror", lambda error: errors.append(error))
    yield opened
    await context.close()
    assert not errors, f"the page threw: {errors}"

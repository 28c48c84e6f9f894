"""What the containers expose and who they run as, read from `docker` itself; and Chromium's network,
proved with a listener container on the compose network that a browser in the environment tries to reach."""

from __future__ import annotations

import os
import time
import uuid

import pytest

from tests.stack.compose import ENV_SERVICE, GALLERY_SERVICE, containers, docker, network

LISTEN_PORT = 9999
# Counts the connections it accepts, one line each.
LISTENER = (
    "import socket\n"
    f"server = socket.create_server(('0.0.0.0', {LISTEN_PORT}))\n"
    "while True:\n"
    "    connection, address = server.accept()\n"
    "    print('connection from', address[0], flush=True)\n"
    "    connection.close()\n"
)
# Run inside an environment container: the renderer's own Chromium class, as a render launches it.
BROWSER_VISIT = """
import asyncio, sys
from pathlib import Path
from playwright.async_api import async_playwright
from watercolour_env.render.chromium import Chromium

async def visit(url):
    async with async_playwright() as playwright:
        chromium = Chromium(playwright, Path("/usr/bin/chromium"))
        await chromium.launch()
        page = await chromium.browser.new_page()
        try:
            await page.goto(url, timeout=5000)
            print("reached")
        except Exception as error:
            print("blocked", type(error).__name__)
        print("isolated" if chromium.network_isolated else "shared network")
        await chromium.close()

asyncio.run(visit(sys.argv[1]))
"""
PLAIN_VISIT = (
    "import sys, contextlib, urllib.request\n"
    "with contextlib.suppress(Exception):\n"
    "    urllib.request.urlopen(sys.argv[1], timeout=5)\n"
)


def test_only_the_environment_and_the_gallery_are_published_and_only_on_loopback():
    for container in containers():
        ports = container.inspect()["NetworkSettings"]["Ports"] or {}
        bindings = [binding for published in ports.values() if published for binding in published]
        if container.service in (ENV_SERVICE, GALLERY_SERVICE):
            assert bindings and {binding["HostIp"] for binding in bindings} == {"127.0.0.1"}, container
        else:
            assert bindings == [], f"{container.service} publishes {bindings}"


def test_every_container_runs_as_a_non_root_user_without_capabilities():
    for container in containers():
        assert container.exec("id", "-u").strip() != "0", container.service
        status = container.exec("cat", "/proc/1/status")
        effective = next(line.split()[1] for line in status.splitlines() if line.startswith("CapEff:"))
        assert int(effective, 16) == 0, f"{container.service}'s process holds capabilities {effective}"


@pytest.fixture
def listener():
    """A listener container on the compose network (labelled with the project, so teardown finds it)."""
    image = containers("scorer-heuristic")[0].inspect()["Image"]
    name = f"watercolour-listener-{uuid.uuid4().hex[:8]}"
    label = f"com.docker.compose.project={os.environ['COMPOSE_PROJECT_NAME']}"
    docker(
        "run",
        "--detach",
        "--name",
        name,
        "--label",
        label,
        "--network",
        network(),
        "--user",
        "1000",
        image,
        "python",
        "-c",
        LISTENER,
    )
    try:
        address = docker("inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", name).strip()
        yield name, f"http://{address}:{LISTEN_PORT}/"
    finally:
        docker("rm", "--force", name)


def connections(name: str) -> int:
    time.sleep(1)
    return docker("logs", name).count("connection from")


def test_chromium_in_the_environment_container_reaches_nothing(replicas, listener):
    name, url = listener
    replica = replicas[0]
    replica.exec("python", "-c", PLAIN_VISIT, url)
    assert connections(name) == 1  # the listener is reachable from the container itself
    visit = replica.exec("python", "-c", BROWSER_VISIT, url, timeout_s=120)
    assert "isolated" in visit and "blocked" in visit, visit
    assert connections(name) == 1  # and Chromium's attempt never arrived

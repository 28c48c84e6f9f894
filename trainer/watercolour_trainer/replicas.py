"""Rollouts fan out over every environment replica; a replica that fails costs its rollouts, never a 0.

`docker compose up --scale env=N` puts N replicas behind one service name: a name that resolves
to several addresses becomes one replica per address.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from watercolour_shared.env_client import EnvClient
from watercolour_shared.render_wire import EpisodeOptions, Evaluation
from watercolour_shared.service_client import ServiceRejected, ServiceUnavailable


@dataclass
class Outcome:
    evaluation: Evaluation | None
    failure: str | None = None  # why the environment gave no answer for this rollout


def expand_replicas(urls: list[str]) -> list[str]:
    expanded: list[str] = []
    for url in urls:
        expanded.extend(u for u in _addresses(url) if u not in expanded)
    return expanded


def _addresses(url: str) -> list[str]:
    parts = urlsplit(url)
    host = parts.hostname or ""
    if host == "localhost" or _is_ip(host):
        return [url]
    try:
        infos = socket.getaddrinfo(host, parts.port or 80, socket.AF_INET, socket.SOCK_STREAM)
    except OSError:
        return [url]  # unresolvable now: the preflight reports it
    addresses = sorted({info[4][0] for info in infos})
    if len(addresses) < 2:
        return [url]
    port = f":{parts.port}" if parts.port else ""
    return [urlunsplit(parts._replace(netloc=f"{address}{port}")) for address in addresses]


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


class EnvReplicas:
    def __init__(self, urls: list[str], token: str | None = None, timeout_s: float = 900.0):
        self.urls = urls
        self.clients = [EnvClient(url, token, timeout_s=timeout_s) for url in urls]

    async def evaluate(self, replies: list[str], seed: int, options: EpisodeOptions) -> list[Outcome]:
        """One contiguous share of the replies per replica, all at once; results keep the replies' order.
        The seed picks the judge's references, so every share faces the same ones."""
        shares = _split(len(replies), len(self.clients))
        calls = [
            self._share(url, client, replies[start:stop], seed, options)
            for url, client, (start, stop) in zip(self.urls, self.clients, shares, strict=True)
        ]
        return [outcome for share in await asyncio.gather(*calls) for outcome in share]

    async def _share(self, url: str, client: EnvClient, replies: list[str], seed: int, options: EpisodeOptions) -> list[Outcome]:
        if not replies:
            return []
        try:
            evaluations = await client.evaluate(replies, seed=seed, options=options, include_png=True)
        except (ServiceUnavailable, ServiceRejected) as error:
            return [Outcome(None, f"{url}: {error}") for _ in replies]
        return [Outcome(evaluation) for evaluation in evaluations]

    async def close(self) -> None:
        for client in self.clients:
            await client.close()


def _split(count: int, parts: int) -> list[tuple[int, int]]:
    size, extra = divmod(count, parts)
    bounds, start = [], 0
    for index in range(parts):
        stop = start + size + (1 if index < extra else 0)
        bounds.append((start, stop))
        start = stop
    return bounds

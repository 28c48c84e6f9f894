"""Rollouts fan out over every environment replica; a replica that fails costs its rollouts, never a 0.

`docker compose up --scale env=N` puts N replicas behind one service name: a name that resolves
to several addresses becomes one replica per address. A replica that gave no answer is left out of
the next groups for a while, so one dead container costs one group's share, not every group's.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import time
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from watercolour_shared.env_client import EnvHttpClient
from watercolour_shared.render_wire import EpisodeOptions, Evaluation
from watercolour_shared.service_client import ServiceRejected, ServiceUnavailable
from watercolour_shared.timeouts import CLIENT_TIMEOUT_S

# How long a replica that gave no answer sits out before it is offered rollouts again.
REPLICA_RETRY_S = 60.0


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
    def __init__(
        self, urls: list[str], token: str | None = None, timeout_s: float = CLIENT_TIMEOUT_S, retry_s: float = REPLICA_RETRY_S
    ):
        self.urls = urls
        self.token, self.timeout_s = token, timeout_s  # also the WebSocket sessions' of a run with revisions
        self.retry_s = retry_s
        self.clients = [EnvHttpClient(url, token, timeout_s=timeout_s) for url in urls]
        self._resting_until = [0.0] * len(urls)

    def live(self) -> list[int]:
        """The replicas offered rollouts now: those not resting after a failure (all, if every one is)."""
        now = time.monotonic()
        awake = [index for index, until in enumerate(self._resting_until) if until <= now]
        return awake or list(range(len(self.urls)))

    async def evaluate(self, replies: list[str], seed: int, options: EpisodeOptions) -> list[Outcome]:
        """One contiguous share of the replies per live replica, all at once; results keep the replies'
        order. The seed picks the judge's references, so every share faces the same ones."""
        live = self.live()
        shares = zip(live, _split(len(replies), len(live)), strict=True)
        calls = [self._share(index, replies[start:stop], seed, options) for index, (start, stop) in shares]
        return [outcome for share in await asyncio.gather(*calls) for outcome in share]

    async def _share(self, index: int, replies: list[str], seed: int, options: EpisodeOptions) -> list[Outcome]:
        if not replies:
            return []
        try:
            evaluations = await self.clients[index].evaluate(replies, seed=seed, options=options, include_png=True)
        except ServiceUnavailable as error:
            self._resting_until[index] = time.monotonic() + self.retry_s
            return [Outcome(None, f"{self.urls[index]}: {error}") for _ in replies]
        except ServiceRejected as error:
            return [Outcome(None, f"{self.urls[index]}: {error}") for _ in replies]
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

"""Rollouts spread over environment replicas: `--scale env=N` behind one name becomes N replicas."""

from __future__ import annotations

import socket

from watercolour_harness.scripted_http import ScriptedServer
from watercolour_shared.render_wire import EpisodeOptions, Evaluation, RenderResult, RewardBreakdown
from watercolour_shared.reward import preset
from watercolour_trainer.replicas import EnvReplicas, _split, expand_replicas


def resolving_to(addresses: list[str]):
    def getaddrinfo(host, port, family=0, kind=0, *args):
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port)) for address in addresses]

    return getaddrinfo


def test_a_name_with_several_addresses_becomes_one_replica_each(monkeypatch):
    monkeypatch.setattr(socket, "getaddrinfo", resolving_to(["172.20.0.5", "172.20.0.3", "172.20.0.5"]))
    assert expand_replicas(["http://env:8000"]) == ["http://172.20.0.3:8000", "http://172.20.0.5:8000"]


def test_single_addresses_literals_and_localhost_stay_as_given(monkeypatch):
    monkeypatch.setattr(socket, "getaddrinfo", resolving_to(["10.0.0.1"]))
    urls = ["https://me-watercolour-env.hf.space", "http://127.0.0.1:8000", "http://localhost:8000"]
    assert expand_replicas(urls + urls[:1]) == urls


def test_a_group_is_split_into_contiguous_shares_that_cover_it():
    assert _split(8, 3) == [(0, 3), (3, 6), (6, 8)]
    assert _split(2, 4) == [(0, 1), (1, 2), (2, 2), (2, 2)]


def one_evaluation() -> dict:
    reward = RewardBreakdown(total=0.5, gate=1.0, length=1.0, weights=preset("hps-only"))
    return {"results": [Evaluation(render=RenderResult(status="passed"), reward=reward).model_dump(mode="json")]}


async def test_a_replica_that_gave_no_answer_sits_out_the_next_group():
    dead = "http://127.0.0.1:1"  # nothing listens: connection refused, as after `docker kill`
    with ScriptedServer([(200, one_evaluation(), 0)]) as survivor:
        replicas = EnvReplicas([dead, survivor.url])
        try:
            first = await replicas.evaluate(["a", "b"], seed=1, options=EpisodeOptions())
            second = await replicas.evaluate(["c"], seed=2, options=EpisodeOptions())
        finally:
            await replicas.close()
    assert first[0].evaluation is None and first[0].failure.startswith(dead)
    assert first[1].evaluation is not None
    assert second[0].evaluation is not None  # the survivor took it: the dead replica rests
    assert [request["body"]["replies"] for request in survivor.requests] == [["b"], ["c"]]
    assert replicas.live() == [1]

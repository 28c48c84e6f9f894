"""Rollouts spread over environment replicas: `--scale env=N` behind one name becomes N replicas."""

from __future__ import annotations

import socket

from watercolour_trainer.replicas import _split, expand_replicas


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

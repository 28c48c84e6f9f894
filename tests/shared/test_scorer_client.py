"""The scorer client's retry policy, against a scripted real HTTP server and the real scorer."""

import pytest

from tests.pictures import soft_wash
from watercolour_harness.scripted_http import ScriptedServer
from watercolour_shared.scorer_client import ScorerClient, ScorerRejected, ScorerUnavailable

ANSWER = {
    "scores": [{"mu": 2.0, "sigma": 0.5, "score": 0.62, "cached": False}],
    "prompt": "a loose watercolour flower",
    "backend": "hpsv3",
    "model": "MizzenAI/HPSv3",
    "model_version": "test",
    "normalisation": "1/(1+exp(-mu/4))",
}


async def test_5xx_is_retried_until_an_answer():
    with ScriptedServer([(500, {"detail": "boom"}, 0), (502, {}, 0), (200, ANSWER, 0)]) as server:
        async with ScorerClient(server.url, retries=2) as client:
            response = await client.score([b"png"])
    assert response.scores[0].mu == 2.0
    assert len(server.requests) == 3


async def test_4xx_is_not_retried():
    with ScriptedServer([(422, {"detail": "image 0 is not a PNG"}, 0)]) as server:
        async with ScorerClient(server.url, retries=3) as client:
            with pytest.raises(ScorerRejected, match="not a PNG"):
                await client.score([b"png"])
    assert len(server.requests) == 1


async def test_a_scorer_that_keeps_failing_is_unavailable_never_zero():
    with ScriptedServer([(503, {"detail": "model is loading"}, 0)]) as server:
        async with ScorerClient(server.url, retries=1) as client:
            with pytest.raises(ScorerUnavailable, match="503"):
                await client.score([b"png"])
    assert len(server.requests) == 2


async def test_a_timeout_is_retried_then_unavailable():
    with ScriptedServer([(200, ANSWER, 1.5)]) as server:
        async with ScorerClient(server.url, timeout_s=0.3, retries=1) as client:
            with pytest.raises(ScorerUnavailable, match="Timeout"):
                await client.score([b"png"])
    assert len(server.requests) == 2


async def test_against_the_real_scorer(scorer_url):
    async with ScorerClient(scorer_url, token="test-token") as client:
        response = await client.score([soft_wash(21), soft_wash(22)], prompt="a peach hibiscus")
    assert len(response.scores) == 2 and response.backend == "heuristic"

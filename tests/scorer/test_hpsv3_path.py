"""The real HPSv3 inference path (hpsv3's loader, Qwen2-VL preprocessing, batching,
forward pass, mu/sigma out) on a tiny random-initialised model, in the scorer's own
environment, over real HTTP."""

import asyncio
import json
import os
import subprocess
from pathlib import Path

import httpx
import pytest

from tests.conftest import SCORER_PYTHON, fresh_seed
from tests.pictures import b64, blank_sheet, hard_blob, soft_wash
from watercolour_harness.processes import free_port


def score(url: str, pngs: list[bytes], prompt: str) -> dict:
    answer = httpx.post(f"{url}/score", json={"images": [b64(p) for p in pngs], "prompt": prompt}, timeout=120)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_the_model_is_named_hpsv3_and_loaded_from_the_local_checkpoint(hpsv3_scorer_url, tiny_hpsv3):
    ready = httpx.get(f"{hpsv3_scorer_url}/ready").json()
    assert ready["ready"] is True and ready["model_version"].startswith("hpsv3-1.0.0+local:")
    body = score(hpsv3_scorer_url, [soft_wash(fresh_seed())], "a loose watercolour flower")
    assert body["backend"] == "hpsv3"
    assert body["model"] == tiny_hpsv3["WATERCOLOUR_SCORER_HPSV3_CHECKPOINT"]


def test_a_batch_scores_each_image_as_it_would_alone(hpsv3_scorer_url):
    prompt = "a peach hibiscus"
    pngs = [soft_wash(fresh_seed()), hard_blob(), blank_sheet()]
    together = [s["mu"] for s in score(hpsv3_scorer_url, pngs, prompt)["scores"]]
    alone = [score(hpsv3_scorer_url, [png], prompt)["scores"][0]["mu"] for png in pngs]
    assert together == pytest.approx(alone, rel=1e-3, abs=1e-5)
    assert len(set(together)) == 3  # different paintings, different scores


async def test_concurrent_requests_share_forward_passes(hpsv3_scorer_url):
    prompt = f"concurrency {fresh_seed()}"
    before = httpx.get(f"{hpsv3_scorer_url}/health").json()["batching"]
    async with httpx.AsyncClient(base_url=hpsv3_scorer_url, timeout=120) as http:
        answers = await asyncio.gather(
            *(http.post("/score", json={"images": [b64(soft_wash(i))], "prompt": prompt}) for i in range(8))
        )
    after = httpx.get(f"{hpsv3_scorer_url}/health").json()["batching"]
    assert [a.status_code for a in answers] == [200] * 8
    assert after["images"] - before["images"] == 8
    assert after["passes"] - before["passes"] < 8


def test_a_checkpoint_that_will_not_load_leaves_the_service_up_and_not_ready(tiny_hpsv3, tmp_path):
    broken = tmp_path / "broken.safetensors"
    broken.write_bytes(b"not a checkpoint")
    port = free_port()
    env = {
        **os.environ,
        **tiny_hpsv3,
        "WATERCOLOUR_SCORER_HPSV3_CHECKPOINT": str(broken),
        "WATERCOLOUR_SCORER_BACKEND": "hpsv3",
        "WATERCOLOUR_SCORER_DEVICE": "cpu",
        "WATERCOLOUR_SCORER_PORT": str(port),
        "WATERCOLOUR_SCORER_HOST": "127.0.0.1",
    }
    process = subprocess.Popen([str(SCORER_PYTHON), "-m", "watercolour_scorer.server"], env=env, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(200):
            try:
                health = httpx.get(f"{url}/health", timeout=2).json()
                if health["load_error"]:
                    break
            except httpx.TransportError:
                pass
            asyncio.run(asyncio.sleep(0.2))
        assert health["load_error"] and health["ready"] is False
        assert httpx.get(f"{url}/ready").status_code == 503
        refused = httpx.post(f"{url}/score", json={"images": [b64(blank_sheet())]}, timeout=30)
        assert refused.status_code == 503 and refused.headers["retry-after"] == "30"
    finally:
        process.terminate()
        process.wait(timeout=15)


def test_per_image_vision_attention_scores_exactly_like_transformers_own(tiny_hpsv3, tmp_path):
    paths = []
    for index, painting in enumerate((soft_wash(1), hard_blob(), soft_wash(2))):
        paths.append(tmp_path / f"{index}.png")
        paths[-1].write_bytes(painting)
    check = Path(__file__).with_name("vision_attention_check.py")
    config, checkpoint = tiny_hpsv3["WATERCOLOUR_SCORER_HPSV3_CONFIG"], tiny_hpsv3["WATERCOLOUR_SCORER_HPSV3_CHECKPOINT"]
    done = subprocess.run(
        [str(SCORER_PYTHON), str(check), config, checkpoint, *map(str, paths)], capture_output=True, text=True, check=True
    )
    scores = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(scores["ours"]) == 4
    for ours, theirs in zip(scores["ours"], scores["theirs"], strict=True):
        assert ours == pytest.approx(theirs, rel=1e-4, abs=1e-6)

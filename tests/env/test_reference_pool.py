"""The reference pool: validation on load, and seeded sampling by tier mix."""

import json
import shutil

import pytest

from tests.conftest import BUNDLED_POOL
from watercolour_shared.reference_pool import ReferencePool, ReferencePoolError, quotas


@pytest.fixture
def pool_copy(tmp_path):
    return shutil.copytree(BUNDLED_POOL, tmp_path / "pool")


def test_the_bundled_pool_loads_with_its_tiers():
    pool = ReferencePool.from_folder(BUNDLED_POOL)
    assert pool.tiers() == {"love": 4, "okay": 2, "meh": 2, "nope": 0}
    assert all(entry.source and entry.source.suffix == ".js" for entry in pool.entries)


def test_the_same_seed_draws_the_same_references_and_another_seed_may_not():
    pool = ReferencePool.from_folder(BUNDLED_POOL)
    draws = {seed: [r.id for r in pool.sample({"love": 2, "okay": 2}, 4, seed)] for seed in range(6)}
    assert [r.id for r in pool.sample({"love": 2, "okay": 2}, 4, 3)] == draws[3]
    assert len({tuple(d) for d in draws.values()}) > 1
    assert all(sorted(i.split("-")[0] for i in d) == ["love", "love", "okay", "okay"] for d in draws.values())


@pytest.mark.parametrize(
    ("mix", "count", "expected"),
    [
        ({"love": 2, "okay": 2}, 4, {"love": 2, "okay": 2}),
        ({"love": 1, "okay": 1}, 3, {"love": 2, "okay": 1}),
        ({"love": 0.5, "okay": 0.3, "meh": 0.2}, 4, {"love": 2, "okay": 1, "meh": 1}),
    ],
)
def test_largest_remainder_quotas(mix, count, expected):
    assert quotas(mix, count) == expected


def test_an_empty_tier_asked_for_is_a_clear_error():
    with pytest.raises(ReferencePoolError, match=r"need 1 'nope' \(the pool holds 0\)"):
        ReferencePool.from_folder(BUNDLED_POOL).sample({"love": 1, "nope": 1}, 2, seed=0)
    with pytest.raises(ReferencePoolError, match="tier mix"):
        quotas({"great": 1}, 2)


def test_a_missing_image_is_a_clear_error(pool_copy):
    (pool_copy / "images" / "love-001.png").unlink()
    with pytest.raises(ReferencePoolError, match="love-001.png' is missing"):
        ReferencePool.from_folder(pool_copy)


def test_an_unknown_tier_is_a_clear_error(pool_copy):
    metadata = pool_copy / "metadata.jsonl"
    rows = [json.loads(line) for line in metadata.read_text().splitlines()]
    rows[0]["tier"] = "masterpiece"
    metadata.write_text("\n".join(json.dumps(row) for row in rows))
    with pytest.raises(ReferencePoolError, match="unknown tier 'masterpiece'"):
        ReferencePool.from_folder(pool_copy)


def test_no_metadata_is_a_clear_error(tmp_path):
    with pytest.raises(ReferencePoolError, match="no metadata.jsonl"):
        ReferencePool.from_folder(tmp_path)

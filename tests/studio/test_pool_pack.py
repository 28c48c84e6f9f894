"""`watercolour pool pack`: graded paintings become a pool the judge's own loader accepts."""

import shutil

from tests.conftest import BUNDLED_POOL
from tests.studio.conftest import SUBJECT, watercolour
from watercolour_shared.reference_pool import ReferencePool
from watercolour_studio.durable import read_lines
from watercolour_studio.pool.collection import Collection

GRADES = ["love", "okay", "love", "meh", "nope"]  # the sixth painting stays ungraded


def grade(folder, tiers=GRADES):
    collection = Collection(folder)
    rows = collection.rows()
    for row, tier in zip(rows, tiers, strict=False):
        collection.grade(row["file_name"], tier)
    return rows


def test_graded_paintings_become_a_pool_the_judge_loads(generated_copy, tmp_path):
    rows = grade(generated_copy)
    done = watercolour("pool", "pack", str(generated_copy), "--out", str(tmp_path / "pool"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"packed 5 paintings (2 love, 1 okay, 1 meh, 1 nope) into {tmp_path / 'pool'}"
    pool = ReferencePool.from_folder(tmp_path / "pool")
    assert pool.tiers() == {"love": 2, "okay": 1, "meh": 1, "nope": 1}
    packed = read_lines(tmp_path / "pool" / "metadata.jsonl")
    assert [row["file_name"] for row in packed] == [
        "images/love-001.png", "images/love-002.png", "images/okay-001.png", "images/meh-001.png", "images/nope-001.png",
    ]  # fmt: skip
    originals = [rows[0], rows[2], rows[1], rows[3], rows[4]]
    for row, original in zip(packed, originals, strict=True):
        assert (row["subject"], row["generator"], row["seed"]) == (SUBJECT, "scripted-painter", original["seed"])
        assert (tmp_path / "pool" / row["file_name"]).read_bytes() == (generated_copy / original["file_name"]).read_bytes()
        assert (tmp_path / "pool" / row["source"]).read_text() == (generated_copy / original["source"]).read_text()
    assert len(pool.sample({"love": 1, "okay": 1}, 2, seed=3)) == 2
    assert "2 love, 1 okay, 1 meh, 1 nope" in (tmp_path / "pool" / "README.md").read_text()


def test_several_folders_pack_into_one_pool(generated_copy, tmp_path):
    grade(generated_copy, ["love", "okay"])
    regraded = shutil.copytree(BUNDLED_POOL, tmp_path / "regraded")
    done = watercolour("pool", "pack", str(generated_copy), str(regraded), "--out", str(tmp_path / "pool"))
    assert done.returncode == 0, done.stderr
    pool = ReferencePool.from_folder(tmp_path / "pool")
    assert pool.tiers() == {"love": 5, "okay": 3, "meh": 2, "nope": 0}
    assert {entry.subject for entry in pool.entries} == {SUBJECT}
    assert sorted(entry.id for entry in pool.entries if entry.tier == "love") == [f"love-00{n}" for n in range(1, 6)]


def test_nothing_graded_or_a_used_folder_is_refused(generated_copy, tmp_path):
    nothing = watercolour("pool", "pack", str(generated_copy), "--out", str(tmp_path / "pool"))
    assert nothing.returncode == 2 and "no graded painting" in nothing.stderr
    grade(generated_copy)
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "keep.txt").write_text("mine")
    used = watercolour("pool", "pack", str(generated_copy), "--out", str(tmp_path / "used"))
    assert used.returncode == 2 and "is not empty" in used.stderr
    assert (tmp_path / "used" / "keep.txt").read_text() == "mine"

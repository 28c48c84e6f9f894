"""The held-out subject set: big enough, versioned, and apart from every subject anything trains on."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT
from watercolour_shared.subjects import (
    DEFAULT_SUBJECT,
    DEMO_EVAL_SUBJECTS_FILE,
    EVAL_SUBJECTS_FILE,
    SubjectsError,
    load_subjects,
)
from watercolour_trainer.config import field_names
from watercolour_trainer.recipe_file import recipe_values

RECIPES = sorted((ROOT / "trainer" / "recipes").glob("*.yaml"))


def trained_subjects() -> list[str]:
    """The default subject and every recipe's; the demo's are held out of both sets in tests/demo/test_corpus_subjects.py."""
    from_recipes = [subject for recipe in RECIPES for subject in recipe_values(recipe, field_names()).get("subjects", [])]
    return [DEFAULT_SUBJECT, *from_recipes]


def test_the_default_set_holds_24_subjects_none_trained_on():
    held_out = load_subjects()
    assert RECIPES and len(held_out.subjects) >= 24
    assert held_out.held_out_from(trained_subjects()) is held_out
    assert held_out.name == "eval-subjects-v1" and len(held_out.sha256) == 64


def test_the_demos_set_is_every_third_of_the_default_one_none_trained_on():
    demo = load_subjects(DEMO_EVAL_SUBJECTS_FILE)
    assert demo.subjects == load_subjects(EVAL_SUBJECTS_FILE).subjects[::3]
    assert demo.held_out_from(trained_subjects()) is demo


def test_a_training_subject_in_the_set_is_named(tmp_path: Path):
    path = tmp_path / "mine.txt"
    path.write_text("a blue iris\n  A Peach  Hibiscus \n")
    with pytest.raises(SubjectsError, match="not held out: A Peach  Hibiscus"):
        load_subjects(path).held_out_from(trained_subjects())


@pytest.mark.parametrize(
    ("text", "error"),
    [("", "no subjects"), ("# only a comment\n\n", "no subjects"), ("a fern\nA  fern\n", "repeated: A  fern")],
)
def test_a_set_that_cannot_measure_is_refused(tmp_path: Path, text: str, error: str):
    path = tmp_path / "mine.txt"
    path.write_text(text)
    with pytest.raises(SubjectsError, match=error):
        load_subjects(path)


def test_the_hash_names_the_subjects_not_the_comments(tmp_path: Path):
    lines = EVAL_SUBJECTS_FILE.read_text().splitlines()
    commented = tmp_path / "commented.txt"
    commented.write_text("\n".join(["# another comment", *lines]))
    changed = tmp_path / "changed.txt"
    changed.write_text("\n".join([*lines, "one more subject"]))
    assert load_subjects(commented).sha256 == load_subjects().sha256 != load_subjects(changed).sha256
    with pytest.raises(SubjectsError, match="cannot read"):
        load_subjects(tmp_path / "missing.txt")

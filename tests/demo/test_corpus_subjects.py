"""The warm start never paints a subject an evaluation calls held out: the shipped set's, or the closing eval's own."""

from dataclasses import replace
from pathlib import Path

from watercolour_demo.warm_start import DEMO_SUBJECTS, WarmStartConfig
from watercolour_shared.subjects import DEMO_EVAL_SUBJECTS_FILE, EVAL_SUBJECTS_FILE, load_subjects

CONFIG = WarmStartConfig()


def test_the_default_corpus_draws_no_shipped_held_out_subject_and_paints_grpos_in_turn():
    subjects = CONFIG.sketch_subjects()
    assert len(subjects) == CONFIG.sketches
    assert subjects[0::2][: len(DEMO_SUBJECTS)] == list(DEMO_SUBJECTS)
    assert len(set(subjects[1::2])) > 100  # many drawn prompts, so the policy paints whatever it is asked
    assert load_subjects(EVAL_SUBJECTS_FILE).shared_with(subjects) == []


def test_grpos_subjects_are_held_out_of_the_default_set_and_the_demos():
    for path in (EVAL_SUBJECTS_FILE, DEMO_EVAL_SUBJECTS_FILE):
        held_out = load_subjects(path)
        assert held_out.held_out_from(list(CONFIG.subjects)) is held_out


def test_a_closing_eval_set_the_corpus_draws_from_gets_a_warm_start_that_never_paints_it(tmp_path: Path):
    drawn = CONFIG.sketch_subjects()[1::2]
    mine = tmp_path / "mine.txt"
    mine.write_text(f"a blue iris\n{drawn[0].upper()}\n{drawn[5]}\n")  # two of them the corpus draws as it stands
    evaluated = load_subjects(mine)
    assert len(evaluated.shared_with(drawn)) == 2

    apart = CONFIG.apart_from(evaluated)
    assert apart.held_out == evaluated.subjects
    assert evaluated.shared_with(apart.sketch_subjects()) == []
    assert apart.key() != CONFIG.key()  # another corpus, another cached policy


def test_a_set_the_corpus_never_draws_keeps_the_warm_start_and_its_key(tmp_path: Path):
    mine = tmp_path / "mine.txt"
    mine.write_text("a lilac sweet pea\na white magnolia\n")
    assert CONFIG.apart_from(load_subjects(mine)) is CONFIG
    small = replace(CONFIG, sketches=36)
    assert small.apart_from(load_subjects(mine)) is small

"""The warm start's cache key: a cached policy is reused only for the corpus it was trained on."""

from dataclasses import replace

from watercolour_demo import warm_start
from watercolour_demo.warm_start import WarmStartConfig
from watercolour_harness.sketchgen.looks import Look


def test_the_key_follows_the_configuration():
    config = WarmStartConfig()
    assert config.key() == WarmStartConfig().key()
    assert replace(config, lr=config.lr * 2).key() != config.key()


def test_a_generator_change_to_any_subject_the_corpus_paints_is_a_new_key(monkeypatch):
    config = WarmStartConfig()
    before = config.key()
    real = warm_start.generate_sketch
    changed = config.subjects[-1]  # the last one taken, the one a probe of the first few would miss

    def generator(subject, seed, **knobs):
        return real(subject, seed, **knobs) + ("// drawn anew" if subject == changed else "")

    monkeypatch.setattr(warm_start, "generate_sketch", generator)
    assert config.key() != before


def test_a_generator_change_to_one_look_only_is_a_new_key(monkeypatch):
    """Zoom 1's line once changed while the key stayed: the probe's sketches had each drawn another look."""
    config = WarmStartConfig()
    before = config.key()
    real = warm_start.generate_sketch

    def generator(subject, seed, look=None, **knobs):
        return real(subject, seed, look=look, **knobs) + ("// seen whole" if look == Look(1, 0.7, 0.4) else "")

    monkeypatch.setattr(warm_start, "generate_sketch", generator)
    assert config.key() != before


def test_a_change_to_the_prompts_is_a_new_key(monkeypatch):
    config = WarmStartConfig()
    before = config.key()
    monkeypatch.setattr(warm_start, "system_prompt", lambda: "Paint in oils.")
    assert config.key() != before

"""The warm start's cache key: a cached policy is reused only for the corpus it was trained on."""

from dataclasses import replace

from watercolour_demo import warm_start
from watercolour_demo.warm_start import WarmStartConfig


def test_the_key_follows_the_configuration():
    config = WarmStartConfig()
    assert config.key() == WarmStartConfig().key()
    assert replace(config, lr=config.lr * 2).key() != config.key()


def test_a_generator_change_to_any_composition_the_corpus_uses_is_a_new_key(monkeypatch):
    config = WarmStartConfig()
    before = config.key()
    real = warm_start.generate_sketch
    changed = config.compositions[-1]  # the rarer one, which no seed-0 sketch of the subject need draw

    def generator(subject, seed, composition=None, **knobs):
        return real(subject, seed, composition=composition, **knobs) + ("// drawn anew" if composition == changed else "")

    monkeypatch.setattr(warm_start, "generate_sketch", generator)
    assert config.key() != before

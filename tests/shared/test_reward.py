import pytest

from watercolour_shared.render_wire import EpisodeOptions
from watercolour_shared.reward import MixWeights, TermScores, mix_reward, preset


def test_failed_gate_scores_zero_whatever_the_terms():
    mixed = mix_reward(False, 1.0, TermScores(judge=1.0, hps=1.0), preset("judge-led"))
    assert mixed.total == 0.0


def test_mix_adds_weighted_terms():
    mixed = mix_reward(True, 0.5, TermScores(judge=0.75, hps=0.5), preset("judge-led"))
    assert mixed.total == pytest.approx(0.05 + 0.05 * 0.5 + 0.60 * 0.75 + 0.30 * 0.5)


def test_missing_weighted_term_makes_the_reward_unavailable_not_smaller():
    mixed = mix_reward(True, 1.0, TermScores(judge=None, hps=0.8), preset("judge-led"))
    assert mixed.total is None
    assert "judge" in mixed.unavailable_reason


def test_zero_weight_term_is_not_needed():
    mixed = mix_reward(True, 1.0, TermScores(judge=None, hps=0.5), preset("hps-only"))
    assert mixed.total == pytest.approx(0.05 + 0.05 + 0.90 * 0.5)


def test_presets_match_the_recipe():
    assert preset("hps-led") == MixWeights(gate=0.05, length=0.05, judge=0.30, hps=0.60)
    with pytest.raises(ValueError, match="unknown mix preset"):
        preset("vibes")


def test_explicit_weights_win_over_preset_over_default():
    default = preset("judge-led")
    explicit = MixWeights(gate=1, length=0, judge=0, hps=0)
    assert EpisodeOptions().weights_or(default) == default
    with pytest.warns(FutureWarning, match="mix='hps-only' is read until"):
        named = EpisodeOptions(mix="hps-only")
    assert named.weights_or(default) == preset("hps-only") and "mix" not in named.model_dump()
    with pytest.warns(FutureWarning):
        assert EpisodeOptions(mix="hps-only", weights=explicit).weights_or(default) == explicit
    with pytest.raises(ValueError, match="unknown mix preset"), pytest.warns(FutureWarning):
        EpisodeOptions.model_validate({"mix": "vibes"})

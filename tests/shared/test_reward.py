import json
import math

import pytest
from pydantic import ValidationError

from watercolour_shared.render_wire import EpisodeOptions, episode_refused
from watercolour_shared.reward import (
    MAX_WEIGHT,
    MIX_TERMS,
    MixWeights,
    TermScores,
    mix_reward,
    parse_weights,
    preset,
    term_values,
)


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


@pytest.mark.parametrize("passed", [True, False])
@pytest.mark.parametrize("hps", [0.0, 0.4])
def test_each_terms_value_weighted_and_summed_is_the_reward(passed, hps):
    # What GDPO normalises term by term: summed with the mix's weights it is the reward the environment gives.
    weights = MixWeights(gate=0.1, length=0.2, judge=0.5, hps=hps)
    terms = TermScores(judge=0.75, hps=0.5 if hps else None)
    values = term_values(passed, 0.6, terms, weights)
    assert list(values) == list(MIX_TERMS)
    total = sum(weights.weight(term) * value for term, value in values.items())
    assert total == pytest.approx(mix_reward(passed, 0.6, terms, weights).total)
    if not passed:
        assert set(values.values()) == {0.0}  # a failed gate is 0 on every term, as its reward is


def test_a_reward_that_is_unavailable_has_no_term_values():
    assert term_values(True, 0.6, TermScores(judge=0.75), preset("judge-led")) is None  # hps weighed, not scored


def test_presets_match_the_recipe():
    assert preset("hps-led") == MixWeights(gate=0.05, length=0.05, judge=0.30, hps=0.60)
    with pytest.raises(ValueError, match="unknown mix preset"):
        preset("vibes")


def test_an_episodes_weights_win_over_the_default():
    default = preset("judge-led")
    explicit = MixWeights(gate=1, length=0, judge=0, hps=0)
    assert EpisodeOptions().weights_or(default) == default
    assert EpisodeOptions(weights=explicit).weights_or(default) == explicit


# Each bad weights object, and the reason MixWeights gives wherever the weights come from.
BAD_WEIGHTS = {
    "Infinity": ({"gate": math.inf, "length": 0, "judge": 0, "hps": 0}, "the weight of gate is not a finite number: inf"),
    "NaN": ({"gate": 0, "length": math.nan, "judge": 0, "hps": 0}, "the weight of length is not a finite number: nan"),
    "-Infinity": ({"gate": 0, "length": 0, "judge": 0, "hps": -math.inf}, "the weight of hps is not a finite number: -inf"),
    "1e308": ({"gate": 1e308, "length": 0, "judge": 0, "hps": 0}, f"the weight of gate is over {MAX_WEIGHT:g}: 1e\\+308"),
    "negative": ({"gate": 1, "length": -0.5, "judge": 0, "hps": 0}, "the weight of length is negative: -0.5"),
    "missing term": ({"gate": 1, "length": 0, "judge": 0}, "weights name every term; missing: hps"),
    "unknown term": ({"gate": 1, "length": 0, "judge": 0, "hps": 0, "style": 1}, "unknown: style"),
}


@pytest.mark.parametrize("name", BAD_WEIGHTS)
def test_weights_are_refused_with_one_reason_in_code_on_the_wire_and_on_the_command_line(name):
    weights, reason = BAD_WEIGHTS[name]
    with pytest.raises(ValidationError, match=reason):
        MixWeights(**weights)
    with pytest.raises(ValidationError, match=reason) as refused:
        EpisodeOptions.model_validate({"weights": weights})
    assert refused.value.title == "EpisodeOptions"  # what the environment's routes answer with 422
    assert json.dumps(refused.value.errors())  # nothing in it that a transport could not send back
    if name != "unknown term":  # the text parser refuses that one itself: "'style=1' is not TERM=WEIGHT"
        with pytest.raises(ValueError, match=reason):
            parse_weights(",".join(f"{term}={value}" for term, value in weights.items()))


def test_weights_are_never_completed_from_the_defaults():
    with pytest.raises(ValidationError, match="missing: gate, length, judge, hps"):
        MixWeights()
    assert MixWeights(gate=MAX_WEIGHT, length=0, judge=0, hps=0).gate == MAX_WEIGHT  # the bound itself is a weight


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"mix": "hps-only"}, "mix was retired: use weights"),  # a preset's name: the trainer sends the weights
        ({"mix": "vibes", "weights": preset("judge-led").model_dump()}, "mix was retired: use weights"),
        ({"subjet": "a fern"}, "Extra inputs are not permitted"),
    ],
)
def test_bad_episode_options_are_a_validation_error_any_transport_can_send(options, reason):
    with pytest.raises(ValidationError, match=reason) as refused:
        EpisodeOptions.model_validate(options)
    assert refused.value.title == "EpisodeOptions"
    assert json.dumps(refused.value.errors())


def test_a_setting_refused_outside_the_model_is_the_same_error():
    refused = episode_refused("references", "the pool has 2 'okay'", 6)
    assert refused.title == "EpisodeOptions"
    assert refused.errors()[0]["loc"] == ("references",) and refused.errors()[0]["msg"] == "the pool has 2 'okay'"

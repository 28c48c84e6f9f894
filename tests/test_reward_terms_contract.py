"""The reward's terms are named once (watercolour_shared.reward.MIX_TERMS), and the two rules a run is
judged by once (watercolour_shared.run_dir): every part that names a term or applies a rule must agree."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from watercolour_demo.__main__ import parser as demo_parser
from watercolour_env.reward_assembly import RewardAssembler
from watercolour_shared.render_wire import Evaluation, RenderResult, RewardBreakdown
from watercolour_shared.reward import MIX_TERMS, MODEL_TERMS, MixWeights, TermScores, format_weights, parse_weights, preset
from watercolour_shared.run_dir import FilmRollout, RolloutRecord, StepTimings, summarise
from watercolour_studio.checks.film_checks import groups_vary
from watercolour_studio.gallery.cards import band
from watercolour_trainer.hub import ROLLOUT_FEATURES

STATIC = Path(__file__).resolve().parent.parent / "studio" / "watercolour_studio" / "static"


def test_the_mixs_models_name_exactly_the_terms():
    assert tuple(MixWeights.model_fields) == MIX_TERMS
    assert tuple(TermScores.model_fields) == MODEL_TERMS
    assert set(MIX_TERMS) <= set(RewardBreakdown.model_fields)
    weights = MixWeights(**dict(zip(MIX_TERMS, (0.1, 0.2, 0.3, 0.4), strict=True)))
    assert parse_weights(format_weights(weights)) == weights
    assert parse_weights("hps=0.4, judge=0.3,length=0.2,gate=0.1") == weights  # named, so any order


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("judge=0.6,hps=0.3,gate=0.05", "missing: length"),
        ("judge=0.6,hps=0.3,gate=0.05,length=0.05,style=1", "'style=1' is not TERM=WEIGHT"),
        ("judge=0.6,judge=0.3,gate=0.05,length=0.05", "judge twice"),
        ("judge=much,hps=0.3,gate=0.05,length=0.05", "weight of judge is not a number"),
        ("judge=-1,hps=0.3,gate=0.05,length=0.05", "weight of judge is negative"),
        ("0.05,0.05,0.6,0.3", "weights name every term: gate=0.05,length=0.05,judge=0.6,hps=0.3"),  # by position: retired
    ],
)
def test_weights_that_do_not_name_every_term_once_are_one_clear_error(text, error):
    with pytest.raises(ValueError, match=error):
        parse_weights(text)


def test_every_part_names_the_same_terms():
    assert tuple(RewardAssembler().configured_terms()) == MODEL_TERMS  # the environment's /ready
    assert [name for name in ROLLOUT_FEATURES if name in MIX_TERMS] == list(MIX_TERMS)  # the Hub's rollouts dataset
    assert ",".join(f"{term}=" for term in MIX_TERMS) in re.sub(r"[\d.]+", "", demo_parser().format_help())  # --weights
    colours = re.search(r"TERM_COLOURS = \{(.*?)\}", (STATIC / "cards.js").read_text())[1]
    assert tuple(re.findall(r"(\w+):", colours)) == MIX_TERMS  # the gallery colours each term


def test_no_page_script_keeps_its_own_list_of_terms():
    for script in STATIC.glob("*.js"):
        assert not re.search(r'\[\s*"gate",\s*"length"', script.read_text()), f"{script.name} lists the terms itself"


def record(index: int, reward: float, group: int = 0) -> RolloutRecord:
    evaluation = Evaluation(
        render=RenderResult(status="passed"),
        reward=RewardBreakdown(total=reward, gate=1.0, length=1.0, judge=reward, hps=reward, weights=preset("judge-led")),
    )
    return RolloutRecord.answered(evaluation, step=1, index=index, group=group, prompt="", seed=0, reply="")


@pytest.mark.parametrize("rewards", [[0.2999, 0.3, 0.6], [0.0, 0.1, 0.29999999], [0.3, 0.31, 0.9]])
def test_the_gallery_files_as_low_exactly_what_the_metrics_count_below_0_3(rewards):
    records = [record(i, reward) for i, reward in enumerate(rewards)]
    metrics = summarise(1, records, StepTimings(generation_s=0, render_s=0, scoring_s=0, training_s=0), "now")
    assert sum(band(FilmRollout(r, None, None)) == "low" for r in records) == metrics.below_0_3


@pytest.mark.parametrize("second", [0.5, 0.5 + 1e-12, 0.5 + 1e-6, 0.7])
def test_check_run_and_the_metrics_agree_on_which_groups_are_all_equal(second):
    records = [record(0, 0.5), record(1, second), record(2, 0.1, group=1), record(3, 0.2, group=1)]
    metrics = summarise(1, records, StepTimings(generation_s=0, render_s=0, scoring_s=0, training_s=0), "now")
    check = groups_vary([FilmRollout(r, None, None) for r in records])
    assert check.line == f"{metrics.all_equal_groups} of {metrics.groups} groups had all-equal rewards"

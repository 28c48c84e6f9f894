"""The environment's judge term and studio's `eval` / `pool calibrate` make their judge with one factory
(watercolour_shared.judge.factory): the same choices and the same checks. They once had a factory each, and
studio's made an HF router judge without a token, to fail at its first comparison."""

from __future__ import annotations

import argparse
from typing import get_args

import pytest

from watercolour_env.services import _judge
from watercolour_env.settings import EnvSettings
from watercolour_shared.judge.defaults import HF_ROUTER_URL
from watercolour_shared.judge.factory import JUDGES
from watercolour_studio.exit_codes import EXIT_ERROR
from watercolour_studio.judges import add_judge_arguments, judge_from

OTHER_ENDPOINT = "http://127.0.0.1:9/v1"


def studio(*flags: str):
    parser = argparse.ArgumentParser()
    add_judge_arguments(parser)
    return judge_from(parser.parse_args(flags))


def env(**settings):
    return _judge(EnvSettings(**settings))


def test_both_offer_the_factorys_judges_and_the_env_also_off(capsys):
    assert get_args(EnvSettings.model_fields["judge"].annotation) == (*JUDGES, "off")
    parser = argparse.ArgumentParser()
    add_judge_arguments(parser)
    for kind in JUDGES:
        assert parser.parse_args(["--judge", kind]).judge == kind
    with pytest.raises(SystemExit):
        parser.parse_args(["--judge", "off"])
    assert env(judge="off")[0] is None


@pytest.mark.parametrize(
    ("kind", "base_url", "token"),
    [("offline", HF_ROUTER_URL, None), ("router", HF_ROUTER_URL, "hf_x"), ("router", OTHER_ENDPOINT, None)],
)
def test_a_judge_that_can_be_made_is_the_same_judge_in_both(monkeypatch, kind, base_url, token):
    if token:
        monkeypatch.setenv("HF_TOKEN", token)
    else:
        monkeypatch.delenv("HF_TOKEN", raising=False)
    made, why = env(judge=kind, judge_base_url=base_url, hf_token=token)
    theirs = studio("--judge", kind, "--judge-base-url", base_url)
    assert why == "" and type(made) is type(theirs) and made.name == theirs.name


def test_the_hf_router_without_a_token_is_refused_by_both(monkeypatch, capsys):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    made, why = env(judge="router", judge_base_url=HF_ROUTER_URL, hf_token=None)
    assert made is None and "HF_TOKEN is not set" in why
    with pytest.raises(SystemExit) as stopped:
        studio("--judge", "router")
    assert stopped.value.code == EXIT_ERROR and "HF_TOKEN is not set" in capsys.readouterr().err

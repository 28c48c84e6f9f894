"""The recipe files: each is a run's flags by name, read through the launch script's own parser; the
command line wins over them; a name that is not a launch flag is refused; parsing adds nothing the
parser does not define."""

from __future__ import annotations

import pytest

from tests.conftest import ROOT
from watercolour_shared.reward import PRESETS
from watercolour_trainer import options

RECIPES = sorted((ROOT / "trainer" / "recipes").glob("*.yaml"))
ENV = ["--env-url", "http://127.0.0.1:8000"]


def dest(name: str) -> str:
    return name.replace("-", "_")


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda path: path.stem)
def test_a_recipe_is_what_the_launch_script_runs(recipe):
    run = options.parse(["--recipe", str(recipe), *ENV])
    for name, value in options.recipe_values(recipe).items():
        assert getattr(run, dest(name)) == pytest.approx(value), name
    assert run.mix == recipe.stem and run.recipe == recipe


def test_every_mix_has_a_recipe():
    assert {recipe.stem for recipe in RECIPES} == set(PRESETS)


def test_the_command_line_wins_over_the_recipe():
    recipe = ROOT / "trainer" / "recipes" / "judge-led.yaml"
    run = options.parse([*ENV, "--steps", "3", "--recipe", str(recipe), "--no-bf16", "--mix", "hps-only"])
    assert (run.steps, run.bf16, run.mix) == (3, False, "hps-only")
    assert run.lora and run.model == "Qwen/Qwen3.5-35B-A3B"  # the rest is still the recipe's


def test_a_recipe_extends_another_and_its_own_keys_win(tmp_path):
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "common.yaml").write_text("model: m\nsteps: 10\nlora: true\n")
    (tmp_path / "run.yaml").write_text("extends: base/common.yaml\nsteps: 3\n")
    assert options.recipe_values(tmp_path / "run.yaml") == {"model": "m", "steps": 3, "lora": True}
    # The project's recipes share their base: a key there reaches every run.
    shared = options.recipe_values(ROOT / "trainer" / "recipes" / "base" / "qwen3.5-h200.yaml")
    for recipe in RECIPES:
        assert shared.items() <= options.recipe_values(recipe).items(), recipe.stem


def test_a_recipe_that_extends_itself_back_is_refused(tmp_path, capsys):
    (tmp_path / "a.yaml").write_text("extends: b.yaml\nsteps: 1\n")
    (tmp_path / "b.yaml").write_text("extends: a.yaml\nmodel: m\n")
    with pytest.raises(SystemExit):
        options.parse(["--recipe", str(tmp_path / "a.yaml"), *ENV])
    assert "which extends it back" in capsys.readouterr().err


def test_a_recipe_key_that_is_not_a_flag_is_refused_by_name(tmp_path, capsys):
    recipe = tmp_path / "typo.yaml"
    recipe.write_text("model: m\nlearning-rate: 1e-5\n")
    with pytest.raises(SystemExit):
        options.parse(["--recipe", str(recipe), *ENV])
    assert f"--recipe {recipe}: learning-rate" in capsys.readouterr().err


def test_parsing_only_fills_the_flags_the_parser_defines():
    run = options.parse(["--recipe", str(RECIPES[0]), *ENV, "--weights", "0.5,0.5,0,0"])
    defined = {action.dest for action in options.parser()._actions} - {"help"}
    assert set(vars(run)) == defined
    assert options.mix_weights(run).model_dump() == {"gate": 0.5, "length": 0.5, "judge": 0.0, "hps": 0.0}
    assert options.run_directory(run).as_posix() == "runs/watercolour-grpo"

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
    run = options.parse(["--recipe", str(RECIPES[0]), *ENV, "--weights", "gate=0.5,length=0.5,judge=0,hps=0"])
    defined = {action.dest for action in options.parser()._actions} - {"help"}
    assert set(vars(run)) == defined
    assert options.mix_weights(run).model_dump() == {"gate": 0.5, "length": 0.5, "judge": 0.0, "hps": 0.0}
    assert options.run_directory(run).as_posix() == "runs/watercolour-grpo"


def test_subjects_given_on_the_command_line_replace_the_recipes():
    recipe = ROOT / "trainer" / "recipes" / "judge-led.yaml"
    assert options.parse(["--recipe", str(recipe), *ENV]).subject == ["a peach hibiscus"]
    run = options.parse(["--recipe", str(recipe), *ENV, "--subject", "a rose", "--subject=a fern sprig"])
    assert run.subject == ["a rose", "a fern sprig"]
    assert options.parse([*ENV, "--model", "m"]).subject == [options.DEFAULT_SUBJECT]


@pytest.mark.parametrize(
    ("flags", "processes", "accumulation"),
    [
        ([], "1", 8),  # one group of 8, one rollout a micro-batch
        (["--prompts-per-step", "4"], "1", 32),
        (["--prompts-per-step", "4", "--per-device-batch-size", "4"], "1", 8),
        (["--prompts-per-step", "4"], "2", 16),  # two processes share each step
    ],
)
def test_accumulation_is_a_steps_rollouts_per_micro_batch(monkeypatch, flags, processes, accumulation):
    monkeypatch.setenv("WORLD_SIZE", processes)
    run = options.parse(["--recipe", str(RECIPES[0]), *ENV, *flags])
    assert run.gradient_accumulation_steps == accumulation


def test_accumulation_given_by_hand_must_agree_with_the_step(capsys):
    with pytest.raises(SystemExit):
        options.parse(["--recipe", str(RECIPES[0]), *ENV, "--prompts-per-step", "2", "--gradient-accumulation-steps", "8"])
    assert "is not a step's 16 rollouts (2 prompts x 8 generations)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        options.parse(["--recipe", str(RECIPES[0]), *ENV, "--num-generations", "6", "--per-device-batch-size", "4"])
    assert "a step's 6 rollouts do not split into micro-batches of 4" in capsys.readouterr().err


def test_compiled_generation_is_on_only_where_cuda_is_unless_told():
    recipe = ["--recipe", str(RECIPES[0]), *ENV]
    assert options.compiles_generation(options.parse(recipe)) is False  # this machine has no CUDA
    assert options.compiles_generation(options.parse([*recipe, "--compiled-generation"])) is True
    assert options.compiles_generation(options.parse([*recipe, "--no-compiled-generation"])) is False

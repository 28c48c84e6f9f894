"""The recipe files and the launch script's config: TRL's GRPOConfig and this project's fields, read through TRL's
parser with `--config`; the command line wins over the recipe; each value is written once; a key that is not a
field is refused by name; a recipe may carry its own weights; an old flag or key is refused naming its new one."""

from __future__ import annotations

import dataclasses
import enum
import subprocess
import sys
from types import SimpleNamespace

import pytest
from pydantic import ValidationError

from tests.conftest import ROOT
from tests.trainer.conftest import SCRIPT
from watercolour_shared.render_wire import MAX_GROUP, EvaluateRequest
from watercolour_shared.retired_names import TRAINER_FLAGS
from watercolour_shared.reward import PRESETS, MixWeights, preset
from watercolour_shared.subjects import DEFAULT_SUBJECT, MAX_SUBJECT_CHARS, SubjectsError, load_subjects
from watercolour_trainer import config
from watercolour_trainer.plan import build_plan
from watercolour_trainer.recipe_file import recipe_values

RECIPES = sorted((ROOT / "trainer" / "recipes").glob("*.yaml"))
BASE = ROOT / "trainer" / "recipes" / "base" / "qwen3.5-h200.yaml"
# A machine without a GPU: --use_cpu lets the recipes' bf16 (TRL's default) through.
ENV = ["--env_url", "http://127.0.0.1:8000", "--use_cpu"]


def plain(value):
    return value.value if isinstance(value, enum.Enum) else value


def values(path):
    return recipe_values(path, config.field_names())


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda path: path.stem)
def test_a_recipe_is_what_the_launch_script_runs(recipe):
    run = config.parse(["--config", str(recipe), *ENV])
    for name, value in values(recipe).items():
        assert plain(getattr(run, name)) == pytest.approx(value), name
    assert run.recipe == recipe
    assert isinstance(run, config.GRPOConfig)


def test_every_preset_has_its_recipe():
    """The presets are the recipe's published runs (the README's table); a recipe needs no preset of its own."""
    for name in PRESETS:
        assert config.parse(["--config", str(ROOT / "trainer" / "recipes" / f"{name}.yaml"), *ENV]).mix_weights() == preset(name)


@pytest.mark.parametrize("recipe", [BASE, *RECIPES], ids=lambda path: path.stem)
def test_each_value_is_written_once(recipe):
    """A key is in a recipe only where it changes what the run gets: what the field is without it (its default,
    after the config resolved it), or the extended file's."""
    default_run = config.parse([*ENV, "--model_name_or_path", "m"])
    defaults = {field.name: plain(getattr(default_run, field.name)) for field in dataclasses.fields(default_run)}
    inherited = values(BASE) if recipe != BASE else {}
    own = {name: value for name, value in values(recipe).items() if name not in inherited or inherited[name] != value}
    for name, value in own.items():
        assert defaults[name] != value, f"{recipe.name}: {name}: {value!r} is the field's default"


def test_every_field_of_every_recipe_is_a_config_field():
    for recipe in [BASE, *RECIPES]:
        assert values(recipe).keys() <= config.field_names(), recipe.name


def test_the_command_line_wins_over_the_recipe():
    recipe = ROOT / "trainer" / "recipes" / "judge-led.yaml"
    run = config.parse([*ENV, "--max_steps", "3", "--config", str(recipe), "--bf16", "false", "--mix", "hps-only"])
    assert (run.max_steps, run.bf16, run.mix) == (3, False, "hps-only")
    assert run.use_peft and run.model_name_or_path == "Qwen/Qwen3.5-35B-A3B"  # the rest is still the recipe's


def test_a_recipe_extends_another_and_its_own_keys_win(tmp_path):
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "common.yaml").write_text("model_name_or_path: m\nmax_steps: 10\nuse_peft: true\n")
    (tmp_path / "run.yaml").write_text("extends: base/common.yaml\nmax_steps: 3\n")
    assert values(tmp_path / "run.yaml") == {"model_name_or_path": "m", "max_steps": 3, "use_peft": True}
    # The project's recipes share their base: a key there reaches every run.
    for recipe in RECIPES:
        assert {k: v for k, v in values(BASE).items() if k != "max_steps"}.items() <= values(recipe).items(), recipe.stem


def test_a_recipe_that_extends_itself_back_is_refused(tmp_path, capsys):
    (tmp_path / "a.yaml").write_text("extends: b.yaml\nmax_steps: 1\n")
    (tmp_path / "b.yaml").write_text("extends: a.yaml\nmodel_name_or_path: m\n")
    with pytest.raises(SystemExit):
        config.parse(["--config", str(tmp_path / "a.yaml"), *ENV])
    assert "which extends it back" in capsys.readouterr().err


def test_a_recipe_key_that_is_not_a_field_is_refused_by_name(tmp_path, capsys):
    recipe = tmp_path / "typo.yaml"
    recipe.write_text("model_name_or_path: m\nlearning_rat: 1e-5\n")
    with pytest.raises(SystemExit):
        config.parse(["--config", str(recipe), *ENV])
    assert f"--config {recipe}: learning_rat is not a field of the config" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("line", "refusal"),
    [
        ("decode_experts: nonsense", "decode_experts: invalid choice: 'nonsense' (choose from 'batched_mm', 'grouped_mm')"),
        ("mix: nonsense", "mix: invalid choice: 'nonsense' (choose from 'hps-led', 'hps-only', 'judge-led')"),
        ("seed: 1.5", "seed: invalid int value: '1.5'"),
        ("env: FOO", "env: TRL's section of environment variables is a mapping"),
    ],
)
def test_a_recipe_value_is_checked_as_the_flag_would_be(tmp_path, capsys, line, refusal):
    recipe = tmp_path / "bad.yaml"
    recipe.write_text(f"model_name_or_path: m\n{line}\n")
    with pytest.raises(SystemExit):
        config.parse(["--config", str(recipe), *ENV])
    assert f"--config {recipe}: {refusal}" in capsys.readouterr().err


def test_a_recipe_value_is_read_as_the_flag_would_be(tmp_path):
    """argparse applies no type to a default: one subject written without a list is still a list of one. A list for a
    flag of one value is the field's as it is, as TRL's own --config gives it (TRL's report_to takes one)."""
    recipe = tmp_path / "one.yaml"
    recipe.write_text(
        "model_name_or_path: m\nsubjects: a rose\nlearning_rate: 1e-5\nlora_target_modules: all-linear\nreport_to: [trackio]\n"
    )
    run = config.parse(["--config", str(recipe), *ENV])
    assert (run.subjects, run.learning_rate, run.lora_target_modules) == (["a rose"], 1e-5, ["all-linear"])
    assert run.report_to == ["trackio"]


def test_a_flag_that_is_not_a_field_is_refused_by_name(capsys):
    with pytest.raises(SystemExit):
        config.parse([*ENV, "--model_name_or_path", "m", "--learning_rat", "1e-5"])
    assert "--learning_rat" in capsys.readouterr().err


def test_help_lists_every_field_with_its_help():
    shown = subprocess.run([sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, timeout=120).stdout
    for field in dataclasses.fields(config.WatercolourGRPOConfig):
        if field.init:
            assert f"--{field.name}" in shown, field.name
            assert field.metadata.get("help"), f"{field.name} has no help text"
    assert "The reward mix preset." in shown and "The environments (one or more URLs)" in shown


def test_the_plan_holds_the_parsed_config_itself():
    run = config.parse(["--config", str(RECIPES[0]), *ENV])
    plan = build_plan(run, run.run_dir, run.env_url, {})
    every = {field.name for field in dataclasses.fields(run) if field.init}
    # A run without revisions writes the run.json it wrote before they existed: their fields are left out.
    assert plan["config"].keys() == every - set(config.REVISION_FIELDS)
    revising = config.parse(["--config", str(RECIPES[0]), *ENV, "--revisions", "1"])
    assert build_plan(revising, revising.run_dir, revising.env_url, {})["config"].keys() == every
    assert plan["config"]["learning_rate"] == 5e-5 and plan["config"]["mix"] == RECIPES[0].stem
    assert plan["model"] == run.model_name_or_path and plan["lora"]["targets"] == "all-linear"


def test_subjects_given_on_the_command_line_replace_the_recipes():
    recipe = ROOT / "trainer" / "recipes" / "judge-led.yaml"
    assert config.parse(["--config", str(recipe), *ENV]).subjects == [DEFAULT_SUBJECT]
    assert config.parse(["--config", str(recipe), *ENV, "--subjects", "a rose", "a fern sprig"]).subjects == [
        "a rose",
        "a fern sprig",
    ]
    # Given twice, a list keeps both (argparse alone keeps the last); the environments likewise.
    run = config.parse(["--config", str(recipe), *ENV, "--subjects", "a rose", "--env_url", "http://b", "--subjects=a fern"])
    assert run.subjects == ["a rose", "a fern"] and run.env_url == ["http://127.0.0.1:8000", "http://b"]


@pytest.mark.parametrize(("old", "new"), TRAINER_FLAGS.items())
def test_a_retired_flag_or_recipe_key_is_refused_naming_its_new_one(old, new, tmp_path, capsys):
    with pytest.raises(SystemExit):
        config.parse([*ENV, "--model_name_or_path", "m", old, "x"])
    assert f"{old} was retired: use {new}" in capsys.readouterr().err
    recipe = tmp_path / "old.yaml"
    recipe.write_text(f"model_name_or_path: m\n{old[2:]}: x\n")
    with pytest.raises(SystemExit):
        config.parse(["--config", str(recipe), *ENV])
    assert f"{old[2:]} was retired: use {new[2:]}" in capsys.readouterr().err


def test_a_recipe_key_spelt_with_hyphens_is_refused_naming_the_field(tmp_path, capsys):
    recipe = tmp_path / "old.yaml"
    recipe.write_text("model_name_or_path: m\ntop-p: 0.95\n")
    with pytest.raises(SystemExit):
        config.parse(["--config", str(recipe), *ENV])
    assert "top-p was retired: use top_p" in capsys.readouterr().err
    # HfArgumentParser's own hyphen spelling of a flag is not an old name.
    assert config.parse([*ENV, "--model-name-or-path", "m", "--top-p", "0.9"]).top_p == 0.9


OWN_WEIGHTS = MixWeights(gate=0.1, length=0, judge=0.8, hps=0.1)


@pytest.mark.parametrize(
    "written", ["weights: {judge: 0.8, hps: 0.1, gate: 0.1, length: 0}", "weights: judge=0.8,hps=0.1,gate=0.1,length=0"]
)
def test_a_recipe_carries_its_own_weights_with_no_preset(written, tmp_path):
    recipe = tmp_path / "judge-heavy.yaml"
    recipe.write_text(f"model_name_or_path: m\n{written}\n")
    run = config.parse(["--config", str(recipe), *ENV])
    assert run.mix_weights() == OWN_WEIGHTS and run.weights == "judge=0.8,hps=0.1,gate=0.1,length=0"


def test_a_recipes_weights_are_checked_as_the_flags_are(tmp_path, capsys):
    recipe = tmp_path / "short.yaml"
    recipe.write_text("model_name_or_path: m\nweights: {judge: 1, hps: 0}\n")
    with pytest.raises(SystemExit):
        config.parse(["--config", str(recipe), *ENV])
    assert "weights name every term; missing: gate, length" in capsys.readouterr().err


def test_the_command_lines_reward_wins_over_whatever_the_recipe_says_of_it(tmp_path):
    """Weights win over a mix given with them; a later layer's --mix (or mix) still beats an earlier one's weights."""
    weighed, mixed = tmp_path / "weighed.yaml", tmp_path / "mixed.yaml"
    weighed.write_text("model_name_or_path: m\nweights: {judge: 0.8, hps: 0.1, gate: 0.1, length: 0}\n")
    mixed.write_text("extends: weighed.yaml\nmix: hps-only\n")
    assert config.parse(["--config", str(weighed), *ENV, "--mix", "hps-led"]).mix_weights() == preset("hps-led")
    assert config.parse(["--config", str(weighed), *ENV, "--mix=hps-led"]).weights is None
    assert config.parse(["--config", str(mixed), *ENV]).mix_weights() == preset("hps-only")  # its own over its base's
    assert config.parse(["--config", str(mixed), *ENV, "--weights", "judge=0.8,hps=0.1,gate=0.1,length=0"]).mix_weights() == (
        OWN_WEIGHTS
    )
    assert config.parse(["--config", str(weighed), *ENV, "--max_steps", "3"]).mix_weights() == OWN_WEIGHTS


@pytest.mark.parametrize(
    ("flags", "processes", "accumulation"),
    [
        ([], 1, 8),  # the recipes' micro-batches of 1: one group of 8, one rollout a micro-batch
        (["--prompts_per_step", "4"], 1, 32),
        (["--prompts_per_step", "4", "--per_device_train_batch_size", "4"], 1, 8),
        (["--prompts_per_step", "4"], 2, 16),  # two processes (WORLD_SIZE) share each step
    ],
)
def test_accumulation_is_a_steps_rollouts_per_micro_batch(flags, processes, accumulation):
    run = config.parse(["--config", str(RECIPES[0]), *ENV, *flags])
    step = SimpleNamespace(**{name: getattr(run, name) for name in ("prompts_per_step", "num_generations")})
    step.per_device_train_batch_size, step.gradient_accumulation_steps = run.per_device_train_batch_size, None
    assert config.accumulation_steps(step, processes) == accumulation
    if processes == 1:
        assert run.gradient_accumulation_steps == accumulation


def test_accumulation_given_by_hand_must_agree_with_the_step(capsys):
    with pytest.raises(SystemExit):
        config.parse(["--config", str(RECIPES[0]), *ENV, "--prompts_per_step", "2", "--gradient_accumulation_steps", "8"])
    assert "is not a step's 16 rollouts (2 prompts x 8 generations)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        config.parse(["--config", str(RECIPES[0]), *ENV, "--num_generations", "6", "--per_device_train_batch_size", "4"])
    assert "a step's 6 rollouts do not split into micro-batches of 4" in capsys.readouterr().err


def test_compiled_generation_is_on_only_where_cuda_is_unless_told():
    recipe = ["--config", str(RECIPES[0]), *ENV]
    assert config.parse(recipe).compiled_generation is False  # this machine has no CUDA
    assert config.parse([*recipe, "--compiled_generation", "true"]).cache_implementation == "static"
    assert config.parse([*recipe, "--compiled_generation", "false"]).cache_implementation is None


def test_a_weights_string_that_does_not_parse_is_refused_at_once(capsys):
    with pytest.raises(SystemExit):
        config.parse([*ENV, "--model_name_or_path", "m", "--weights", "judge=2"])
    assert "judge" in capsys.readouterr().err


def test_a_group_larger_than_the_wire_takes_is_refused_when_the_config_is_parsed(capsys):
    """A group is one /evaluate call, whose replies the wire caps (render_wire.MAX_GROUP): a larger num_generations
    once parsed, and was refused by the environment at step 1, after the model had loaded."""
    with pytest.raises(ValidationError):
        EvaluateRequest(replies=["x"] * (MAX_GROUP + 1))
    EvaluateRequest(replies=["x"] * MAX_GROUP)
    recipe = ["--config", str(RECIPES[0]), *ENV]
    assert config.parse([*recipe, "--num_generations", str(MAX_GROUP)]).num_generations == MAX_GROUP
    with pytest.raises(SystemExit):
        config.parse([*recipe, "--num_generations", str(MAX_GROUP + 1)])
    assert f"scores at most {MAX_GROUP} replies a group" in capsys.readouterr().err


def test_a_subject_longer_than_the_wire_takes_is_refused_when_the_config_is_parsed(capsys, tmp_path):
    """The wire refuses a subject over MAX_SUBJECT_CHARS: every group of it would be dropped, step after step, as a
    refused request. The config and a subjects file refuse it first."""
    long = "a " + "very " * (MAX_SUBJECT_CHARS // 5) + "long rose"
    recipe = ["--config", str(RECIPES[0]), *ENV]
    with pytest.raises(SystemExit):
        config.parse([*recipe, "--subjects", "a fern", long])
    assert f"subjects over {MAX_SUBJECT_CHARS} characters" in capsys.readouterr().err
    listed = tmp_path / "subjects.txt"
    listed.write_text(f"a fern\n{long}\n")
    with pytest.raises(SubjectsError, match=f"over {MAX_SUBJECT_CHARS} characters"):
        load_subjects(listed)


def test_trls_reward_weights_are_refused_since_the_mix_weighs_the_terms(capsys):
    with pytest.raises(SystemExit):
        config.parse([*ENV, "--model_name_or_path", "m", "--reward_weights", "1"])
    assert "--reward_weights is not read here: --weights or --mix weigh the reward's terms" in capsys.readouterr().err

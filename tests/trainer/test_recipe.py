"""The recipe files and the launch script's config: TRL's GRPOConfig and this project's fields, read through TRL's
parser with `--config`; the command line wins over the recipe; each value is written once; a key that is not a
field is refused by name; the old flags and keys still work, with a warning naming the new one."""

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
from watercolour_shared.reward import PRESETS
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
    assert run.mix == recipe.stem and run.recipe == recipe
    assert isinstance(run, config.GRPOConfig)


def test_every_mix_has_a_recipe():
    assert {recipe.stem for recipe in RECIPES} == set(PRESETS)


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
        ("decode_experts: nonsense", "decode_experts: 'nonsense' is not one of batched_mm, grouped_mm"),
        ("mix: nonsense", "mix: 'nonsense' is not one of hps-led, hps-only, judge-led"),
        ("seed: 1.5", "seed: 1.5 is not what the field takes"),
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
    """argparse applies no type to a default: one subject written without a list is still a list of one."""
    recipe = tmp_path / "one.yaml"
    recipe.write_text("model_name_or_path: m\nsubjects: a rose\nlearning_rate: 1e-5\nlora_target_modules: all-linear\n")
    run = config.parse(["--config", str(recipe), *ENV])
    assert (run.subjects, run.learning_rate, run.lora_target_modules) == (["a rose"], 1e-5, ["all-linear"])


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
    assert plan["config"].keys() == {field.name for field in dataclasses.fields(run) if field.init}
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


def test_old_flags_mean_what_they_meant_and_name_the_new_ones(capsys):
    old = [
        "--recipe", str(RECIPES[0]), "--env-url", "http://a", "--env-url", "http://b", "--model", "m", "--lr", "1e-5",
        "--steps", "7", "--subject", "a rose", "--subject", "a fern", "--per-device-batch-size", "2", "--lora",
        "--all-linear", "--no-bf16", "--run-tag", "t", "--run-dir", "/tmp/t", "--resume", "--lr-scheduler", "constant",
        "--compiled-generation", "--use-cpu", "--use-vllm", "server", "--vllm-server-url", "http://v",
    ]  # fmt: skip
    new = [
        "--config", str(RECIPES[0]), "--env_url", "http://a", "http://b", "--model_name_or_path", "m",
        "--learning_rate", "1e-5", "--max_steps", "7", "--subjects", "a rose", "a fern", "--per_device_train_batch_size",
        "2", "--use_peft", "--lora_target_modules", "all-linear", "--bf16", "false", "--run_name", "t", "--output_dir",
        "/tmp/t", "--resume_from_checkpoint", "last", "--lr_scheduler_type", "constant", "--compiled_generation", "true",
        "--use_cpu", "--use_vllm", "true", "--vllm_mode", "server", "--vllm_server_base_url", "http://v",
    ]  # fmt: skip
    assert config.parse(old).to_dict() == config.parse(new).to_dict()
    warned = capsys.readouterr().err
    for was, now in [
        ("--recipe", "--config"), ("--lr", "--learning_rate"), ("--steps", "--max_steps"), ("--subject", "--subjects"),
        ("--lora", "--use_peft"), ("--all-linear", "--lora_target_modules all-linear"), ("--no-bf16", "--bf16 false"),
        ("--run-dir", "--output_dir"), ("--resume", "--resume_from_checkpoint last"), ("--model", "--model_name_or_path"),
        ("--use-vllm server", "--use_vllm true --vllm_mode server"),
    ]:  # fmt: skip
        assert f"warning: {was} is now {now}; the old name is read until" in warned, was
    assert "--env-url is now" not in warned  # HfArgumentParser's own hyphen spelling of a field is not old


def test_an_old_recipe_file_still_runs_and_names_its_new_keys(tmp_path, capsys):
    old = tmp_path / "old.yaml"
    old.write_text(
        "model: m\nlora: true\nall-linear: true\nsubject: [a rose]\nlr: 5.0e-5\nsteps: 110\ntop-p: 0.95\n"
        "per-device-batch-size: 1\nmax-completion-length: 8192\n"
    )
    new = tmp_path / "new.yaml"
    new.write_text(
        "model_name_or_path: m\nuse_peft: true\nlora_target_modules: [all-linear]\nsubjects: [a rose]\n"
        "learning_rate: 5.0e-5\nmax_steps: 110\ntop_p: 0.95\nper_device_train_batch_size: 1\nmax_completion_length: 8192\n"
    )
    assert config.parse(["--config", str(old), *ENV]).to_dict() == config.parse(["--config", str(new), *ENV]).to_dict()
    warned = capsys.readouterr().err
    assert "recipe key 'top-p' is now 'top_p'" in warned and "recipe key 'lr' is now 'learning_rate'" in warned
    assert "recipe key 'all-linear' is now lora_target_modules: ['all-linear']" in warned


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

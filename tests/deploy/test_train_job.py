"""`watercolour train-job` and `make train-job`: the `hf jobs uv run` command for a recipe (checked by the real
`hf` CLI's own dry run and by the trainer's own flag parser), the scorer Space paused after the job, and a
dry run that needs neither a token nor the Hub. The launch itself goes to a stand-in `hf` on PATH: a real
job would start paid hardware."""

from __future__ import annotations

import os
import re
import shlex
import stat
import subprocess
from pathlib import Path

import huggingface_hub.constants
import pytest

from watercolour_deploy.train_job import JOB_ROOT, JobPlan, timeout_hours
from watercolour_harness.processes import free_port
from watercolour_trainer.config import parse

ROOT = Path(__file__).resolve().parents[2]
ENV, SCORER = "tester/watercolour-env", "tester/watercolour-scorer"
ENV_APP = "https://tester-watercolour-env.hf.space"


@pytest.fixture
def spaces(hub):
    """Both Spaces, up and running."""
    for space_id in (ENV, SCORER):
        hub.create_repo(space_id, "space", sdk="docker", hardware="a100-large").add_commit({"Dockerfile": b"FROM x"}, "app")
    return hub


@pytest.fixture
def fake_hf(tmp_path, monkeypatch):
    """An `hf` first on PATH that records its arguments and HF_TOKEN, and exits with FAKE_HF_EXIT."""
    record = tmp_path / "launched"
    fake = tmp_path / "hf"
    fake.write_text(
        f'#!/bin/sh\nprintf "%s\\n" "$@" > {record}\necho "token=$HF_TOKEN" >> {record}\nexit "${{FAKE_HF_EXIT:-0}}"\n'
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    return record


def printed_command(out: str) -> list[str]:
    lines = out.splitlines()
    assert lines[0] == f"# from {ROOT}"
    return shlex.split(lines[1])


def trainer_args(command: list[str]) -> list[str]:
    return command[command.index("--") + 1 :]


def parsed(args: list[str]):
    """The trainer's reading of the job's arguments, with the job's mounted folders read from this checkout."""
    local = [arg.replace(JOB_ROOT, str(ROOT)) if arg.startswith(JOB_ROOT) else arg for arg in args]
    return parse([*local, "--use_cpu"])  # this machine has no GPU for the recipes' bf16


@pytest.fixture
def no_token(monkeypatch, tmp_path):
    """No HF_TOKEN and no saved login."""
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_TOKEN_PATH", str(tmp_path / "no-token"))


def test_the_dry_run_prints_the_recipe_launch_for_the_mix(spaces, watercolour):
    code, out, err = watercolour("train-job", "--recipe", "hps-only", "--dry-run")
    assert code == 0, err
    command = printed_command(out)
    assert command[1:4] == ["jobs", "uv", "run"] and Path(command[0]).name == "hf"
    launch = command[: command.index("--")]
    for flag, value in (
        ("--flavor", "h200"),
        ("--timeout", "48h"),
        ("--secrets", "HF_TOKEN"),
        ("-e", "WATERCOLOUR_SRC=/opt/watercolour"),
    ):
        assert launch[launch.index(flag) + 1] == value
    assert launch[-1] == "trainer/watercolour_grpo.py"
    assert "--config /opt/watercolour/trainer/recipes/hps-only.yaml" in shlex.join(trainer_args(command))

    run = parsed(trainer_args(command))
    assert run.env_url == [ENV_APP] and run.mix == "hps-only" and run.max_steps == 60
    assert (run.model_name_or_path, run.hub_model_id, run.push_to_hub) == (
        "Qwen/Qwen3.5-35B-A3B",
        "tester/watercolour-grpo-hps-only",
        True,
    )
    assert run.lora_targets == "all-linear" and run.bf16 and run.gradient_checkpointing
    assert (run.learning_rate, run.lr_scheduler_type, run.warmup_steps, run.scale_rewards) == (
        5e-5,
        "constant_with_warmup",
        5,
        "none",
    )
    assert (run.top_p, run.top_k, run.num_generations, run.max_completion_length) == (0.95, 20, 8, 8192)
    assert (run.subjects, run.prompts_per_step, run.references, run.n_episodes) == (["a peach hibiscus"], 1, 4, 240)
    assert (run.per_device_train_batch_size, run.gradient_accumulation_steps) == (1, 8)  # computed: one group of 8

    assert "$240.00 (48 h at $5.00/h)" in out and "$2.50/h" in out
    assert f"# afterwards: pause {SCORER}" in out
    assert spaces.repo(SCORER, "space").stage == "RUNNING"  # a dry run changes nothing


def test_the_retired_mix_flag_is_refused_naming_recipe(spaces, watercolour, capsys):
    with pytest.raises(SystemExit):
        watercolour("train-job", "--mix", "hps-only", "--dry-run")
    refused = capsys.readouterr()
    assert "--mix was retired: use --recipe" in refused.err and not refused.out


def test_the_jobs_flavor_is_the_trainers(spaces, watercolour):
    """The trainer prices its plan by --flavor, so the job passes on the hardware it asks for."""
    code, out, err = watercolour("train-job", "--flavor", "a100-large", "--dry-run")
    assert code == 0, err
    command = printed_command(out)
    assert command[command.index("--flavor") + 1] == "a100-large"
    assert parsed(trainer_args(command)).flavor == "a100-large"


def test_the_real_hf_cli_accepts_the_command(spaces, watercolour):
    code, out, _ = watercolour("train-job", "--recipe", "judge-led", "--dry-run", "--", "--learning_rate", "1e-5")
    assert code == 0
    command = printed_command(out)
    command.insert(4, "--dry-run")  # hf's own: prints the resolved job, submits nothing
    resolved = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=os.environ, timeout=120)
    assert resolved.returncode == 0, resolved.stderr
    fields = dict(
        line.strip().split(None, 1) for line in resolved.stdout.splitlines() if line.startswith("  ") and " " in line.strip()
    )
    assert fields["args"] == shlex.join(trainer_args(command))
    assert fields["script"] == "trainer/watercolour_grpo.py" and fields["flavor"] == "h200" and fields["timeout"] == "48h"
    assert fields["volumes"] == "./shared:/opt/watercolour/shared" and "./trainer:/opt/watercolour/trainer" in resolved.stdout
    assert trainer_args(command)[-2:] == ["--learning_rate", "1e-5"] and parsed(trainer_args(command)).learning_rate == 1e-5


def test_after_the_job_the_scorer_space_is_paused(spaces, watercolour, fake_hf):
    code, out, err = watercolour("train-job", "--recipe", "hps-led", "--env-url", "http://10.0.0.5:8000")
    assert code == 0, err
    launched = fake_hf.read_text().splitlines()
    assert launched[:-1] == printed_command(out)[1:] and launched[-1] == f"token={os.environ['HF_TOKEN']}"
    assert parsed(trainer_args(launched[:-1])).env_url == ["http://10.0.0.5:8000"]
    assert spaces.repo(SCORER, "space").stage == "PAUSED" and spaces.repo(ENV, "space").stage == "RUNNING"
    assert f"scorer  {SCORER}: PAUSED" in out


def test_a_failed_job_still_pauses_the_scorer_and_exits_1(spaces, watercolour, fake_hf, monkeypatch):
    monkeypatch.setenv("FAKE_HF_EXIT", "3")
    assert watercolour("train-job")[0] == 1
    assert spaces.repo(SCORER, "space").stage == "PAUSED"


def test_keep_scorer_leaves_it_up(spaces, watercolour, fake_hf):
    code, out, _ = watercolour("train-job", "--keep-scorer")
    assert code == 0 and "# afterwards: the scorer Space stays up" in out
    assert fake_hf.exists() and spaces.repo(SCORER, "space").stage == "RUNNING"


def test_a_bad_timeout_or_a_missing_env_space_launches_nothing(hub, watercolour, fake_hf):
    code, _, err = watercolour("train-job", "--timeout", "two days", "--namespace", "tester")
    assert code == 2 and "not a duration" in err
    code, _, err = watercolour("train-job")
    assert code == 2 and "404" in err  # no env Space to train against
    assert not fake_hf.exists()


def test_a_dry_run_needs_no_token_and_shows_what_it_would_look_up(hub, watercolour, no_token):
    code, out, err = watercolour("train-job", "--dry-run")
    assert code == 0, err
    run = parsed(trainer_args(printed_command(out)))
    assert (
        run.env_url == ["https://namespace-watercolour-env.hf.space"]
        and run.hub_model_id == "NAMESPACE/watercolour-grpo-judge-led"
    )
    assert "# not looked up: the namespace, the token's user (shown as NAMESPACE)" in out and "no Hub token" in out


def test_a_dry_run_needs_no_hub_even_with_a_namespace(watercolour, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{free_port()}")
    code, out, err = watercolour("train-job", "--dry-run", "--namespace", "me", "--recipe", "hps-led")
    assert code == 0, err
    assert parsed(trainer_args(printed_command(out))).env_url == ["https://me-watercolour-env.hf.space"]
    assert re.search(r"# not looked up: the env Space me/watercolour-env's URL .*: the Hub at \S+ cannot be reached", out)


def test_without_a_token_or_a_hub_a_launch_is_one_line_and_exit_2(hub, watercolour, no_token, fake_hf, monkeypatch):
    code, out, err = watercolour("train-job")
    assert (code, out) == (2, "") and err.startswith("watercolour: no Hub token") and len(err.splitlines()) == 1
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{free_port()}")
    code, out, err = watercolour("train-job", "--namespace", "me")
    assert (code, out) == (2, "") and "cannot be reached (ConnectError" in err and len(err.splitlines()) == 1
    assert not fake_hf.exists()


def test_the_launch_scripts_docstring_is_the_jobs_command():
    docstring = (ROOT / "trainer" / "watercolour_grpo.py").read_text().split('"""')[1]
    written = shlex.split(re.search(r"^ {4}(hf jobs uv run .*?)(?=\n\n)", docstring, re.S | re.M)[1].replace("\\\n", " "))
    plan = JobPlan(
        env_urls=["https://<you>-watercolour-env.hf.space"],
        recipe="trainer/recipes/judge-led.yaml",
        run_tag="my-run",
        out="<you>/watercolour-grpo",
    )
    assert written == plan.command("hf")


def test_durations_parse_and_a_recipe_must_travel_with_the_job():
    assert [timeout_hours(text) for text in ("48h", "90m", "2d", "7200", "30s")] == [48, 1.5, 48, 2, 30 / 3600]
    plan = JobPlan(env_urls=["a", "b"], recipe="trainer/recipes/hps-led.yaml", run_tag="t", out="o", flavor="some-new-flavour")
    assert plan.trainer_args()[:5] == ["--env_url", "a", "b", "--config", f"{JOB_ROOT}/trainer/recipes/hps-led.yaml"]
    assert parsed(plan.trainer_args()).flavor == "some-new-flavour"  # the trainer prices the hardware the job runs on
    assert "price unknown" in plan.cost_note("a100-large")
    with pytest.raises(ValueError, match="not in a folder the job mounts"):
        JobPlan(env_urls=["a"], recipe="/home/me/recipe.yaml", run_tag="t", out="o").trainer_args()


def make_train_job(*variables: str) -> subprocess.CompletedProcess:
    """What `make train-job` would run (`-n`). Run under `make test` too: the outer make's variables would make this
    one print directories."""
    env = {key: value for key, value in os.environ.items() if key not in {"MAKEFLAGS", "MAKELEVEL", "MFLAGS"}}
    command = ["make", "--no-print-directory", "-n", "train-job", *variables]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env)


@pytest.mark.parametrize(
    ("variables", "expected"),
    [
        (["RECIPE=hps-led", "DRY_RUN=1"], "train-job --recipe hps-led --dry-run"),
        ([], "train-job"),  # the command's own default mix (DEFAULT_MIX), not a second one in the Makefile
    ],
)
def test_make_train_job(variables, expected):
    planned = make_train_job(*variables)
    assert planned.returncode == 0, planned.stderr
    assert planned.stdout.splitlines()[-1].rstrip() == f".venv/bin/watercolour {expected}"


def test_make_train_job_refuses_the_retired_mix_variable():
    refused = make_train_job("MIX=hps-led")
    assert refused.returncode != 0 and "MIX was retired: use RECIPE=hps-led" in refused.stderr
    assert "watercolour train-job" not in refused.stdout

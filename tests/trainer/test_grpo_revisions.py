"""The launch script with revisions (`--revisions 1`): a real two-step GRPO run of a tiny random policy against the real
environment (offline judge, heuristic scorer, Chromium), whose rollouts paint, read the critique and paint again through
TRL's tool calling, on the trainer's own generation path; and the same script without revisions, writing what it wrote
before them.

The policy is a tiny Qwen3 decoder built here, speaking Qwen3.5's tool calls (a sketch is written raw in the call, so
tokens whole lines long keep it short). A random model writes no tool call, so it is first trained, supervised, on one
real episode of the run's own row, as tests/trainer/test_trl_revisions_example.py does for a vision-language policy:
paint two-washes.js, read the critique, paint the revision, stop."""

from __future__ import annotations

import functools
import json
from types import SimpleNamespace

import pytest
import torch
from transformers.utils.chat_template_utils import render_jinja_template
from trl.chat_template_utils import qwen3_5_nothink_chat_template

from tests.conftest import fresh_seed, sketch
from tests.trainer.conftest import corpus, run_trainer
from watercolour_env.critique import CRITIQUE_VERSION
from watercolour_env.tool_env import WatercolourToolEnv
from watercolour_harness.tiny_policy import PolicySize, build_policy, build_tokenizer, learn_turns, save_policy
from watercolour_shared.prompts import tool_messages, user_prompt
from watercolour_shared.reward import preset
from watercolour_shared.run_dir import RolloutRecord, RunReader, RunWriter, StepTimings, summarise
from watercolour_shared.run_dir.layout import rollout_name
from watercolour_trainer import config
from watercolour_trainer.config import REVISION_FIELDS
from watercolour_trainer.env_reward import StepClock, step_seed
from watercolour_trainer.revisions import LOST_EPISODE, FilmedToolEnv, RevisionReward

SUBJECT = "a red poppy"
RUN_SEED = 45
FIRST = sketch("two-washes.js")
REVISED = FIRST.replace("#b83b5e", "#3b6fd9")  # the revision: the second wash in blue
TOOL_TOKENS = ["<think>", "</think>", "<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>"]
RUN = (
    "--model_name_or_path", "{policy}", "--max_steps", "2", "--num_generations", "2", "--per_device_train_batch_size", "2",
    "--n_episodes", "1", "--subjects", SUBJECT, "--seed", str(RUN_SEED), "--temperature", "0.3",
    "--bf16", "false", "--gradient_checkpointing", "false", "--report_to", "none", "--save_strategy", "no",
)  # fmt: skip


def call(painting: str) -> dict:
    painted = {"type": "function", "function": {"name": "paint", "arguments": {"sketch": painting}}}
    return {"role": "assistant", "content": "", "tool_calls": [painted]}


@pytest.fixture(scope="module")
def episode(full_reward_env_url) -> list[dict]:
    """The run's one row's real episode, as the policy is to live it: its seed, the run's weights and references."""
    seed = step_seed(RUN_SEED, 0)  # the seed of the run's episode 0 (its only row)
    with WatercolourToolEnv(full_reward_env_url, weights=preset("judge-led").model_dump(), references=4, revisions=1) as env:
        brief = env.reset(subject=SUBJECT, seed=seed)
        first, last = (env.paint(painting) for painting in (FIRST, REVISED))
    system, user = tool_messages()
    return [
        system,
        {**user, "content": user["content"] + brief},  # TRL appends the brief to the row's empty user message
        call(FIRST),
        {"role": "tool", "name": "paint", "content": first},
        call(REVISED),
        {"role": "tool", "name": "paint", "content": last},
        {"role": "assistant", "content": ""},
    ]


def encode(tokenizer, messages: list[dict], **options) -> dict:
    return tokenizer.apply_chat_template(
        messages, tools=[WatercolourToolEnv.paint], tokenize=True, return_dict=True, return_tensors="pt", **options
    )


@pytest.fixture(scope="module")
def reviser(episode, tmp_path_factory):
    """Tokens whole lines long, trained on the sketches, the prompts and the episode's text; Qwen3.5's chat template
    (TRL parses its tool calls); a two-layer Qwen3 decoder that has learnt the episode."""
    text = render_jinja_template([episode], tools=[WatercolourToolEnv.paint], chat_template=qwen3_5_nothink_chat_template)[0][0]
    tokenizer = build_tokenizer(corpus() + [text], vocab_size=4096, whole_lines=True)
    tokenizer.add_tokens(TOOL_TOKENS)
    tokenizer.chat_template = qwen3_5_nothink_chat_template
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny matrices: one thread is faster than two that contend
    try:
        model = build_policy(tokenizer, PolicySize(hidden=128, layers=2, heads=2, kv_heads=1, intermediate=256))
        assert learn_turns(model, functools.partial(encode, tokenizer), episode, tokenizer.eos_token_id, steps=150) < 0.05
    finally:
        torch.set_num_threads(threads)
    return save_policy(model, tokenizer, tmp_path_factory.mktemp("reviser"))


def launched(root, policy, *flags: str, env_url: str) -> RunReader:
    """The launch script's run of RUN with `flags`, finished; its run directory."""
    args = [arg.format(policy=policy) for arg in RUN]
    finished = run_trainer("--env_url", env_url, *args, *flags, "--output_dir", str(root / "run"), home=root / "hf")
    assert finished.returncode == 0, finished.stderr[-3000:]
    return RunReader(root / "run")


@pytest.fixture(scope="module")
def revised(reviser, full_reward_env_url, tmp_path_factory) -> RunReader:
    root = tmp_path_factory.mktemp("revised")
    return launched(root, reviser, "--revisions", "1", "--max_completion_length", "512", env_url=full_reward_env_url)


def test_every_rollout_keeps_each_turns_painting_code_and_critique(revised):
    assert revised.steps() == [1, 2]
    for step in (1, 2):
        rollouts = revised.rollouts(step)
        assert [r.record.index for r in rollouts] == [0, 1]
        for rollout in rollouts:
            record = rollout.record
            assert record.prompt == user_prompt(SUBJECT) and record.seed == step_seed(RUN_SEED, 0)
            assert [turn.turn for turn in record.turns] == [0, 1]
            assert [turn.code.strip() for turn in record.turns] == [FIRST.strip(), REVISED.strip()]  # the policy's calls
            assert not any(turn.handed_in or turn.failure for turn in record.turns)
            assert [turn.revisions_left for turn in record.turns] == [1, 0]
            for turn, filmed in zip(record.turns, rollout.turns, strict=True):
                assert turn.render.status == "passed" and turn.critique.startswith("The sketch passed the gate.")
                assert "Paint covers" in turn.critique and turn.critique_version == CRITIQUE_VERSION
                assert filmed.js.read_text() == turn.code
                assert filmed.png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            # the rollout's own files are its last painting's, where a rollout without revisions keeps them
            assert rollout.png.read_bytes() == rollout.turns[-1].png.read_bytes()
            assert rollout.js.read_text() == record.turns[-1].code == record.reply


def test_the_reward_is_the_last_turns(revised):
    for step in (1, 2):
        for rollout in revised.rollouts(step):
            record = rollout.record
            assert record.evaluation.render.status == "passed"
            assert record.reward == record.evaluation.reward.total > 0  # revision_bonus 0: the last painting's reward
            assert record.dropped_reason is None
    metrics = revised.metrics()
    assert [(m.step, m.rollouts, m.dropped) for m in metrics] == [(1, 2, 0), (2, 2, 0)]
    assert all(m.components["judge"] is not None and m.gate_pass_rate == 1.0 for m in metrics)


def test_the_plan_records_the_revisions(revised):
    config = json.loads(revised.plan_path.read_text())["config"]
    assert (config["revisions"], config["revision_bonus"]) == (1, 0.0)


@pytest.fixture(scope="module")
def single_turn(tiny_policy, full_reward_env_url, tmp_path_factory) -> RunReader:
    root = tmp_path_factory.mktemp("single")
    return launched(root, tiny_policy, "--max_steps", "1", "--max_completion_length", "48", env_url=full_reward_env_url)


def test_without_revisions_the_run_writes_what_it_wrote_before(single_turn):
    """The film's files and records, and run.json's config, as before revisions existed: nothing of them added."""
    (rollouts,) = [single_turn.rollouts(step) for step in single_turn.steps()]
    for rollout in rollouts:
        stem = rollout_name(rollout.record.index)
        files = {path.name for path in single_turn.step_dir(1).glob(f"{stem}*")}
        assert files <= {f"{stem}.{ext}" for ext in ("js", "png", "json")}
        written = json.loads((single_turn.step_dir(1) / f"{stem}.json").read_text())
        assert list(written) == [name for name in RolloutRecord.model_fields if name != "turns"]
        assert not rollout.turns
    config = json.loads(single_turn.plan_path.read_text())["config"]
    assert not set(REVISION_FIELDS) & set(config)


def scored(env: FilmedToolEnv, run_dir, seed: int) -> RolloutRecord:
    """The rollout as the launch script's reward function scores and films it, at step 1."""
    reward = RevisionReward(RunWriter(run_dir), StepClock())
    state = SimpleNamespace(global_step=0)
    given = reward(completions=[[]], trainer_state=state, episode_id=[0], subject=[SUBJECT], seed=[seed], environments=[env])
    record = RunReader(run_dir).rollout(1, 0).record
    assert given == [record.reward]
    return record


def test_a_term_lost_at_a_turn_drops_the_rollout_never_0(dead_scorer_env_url, tmp_path):
    seed = fresh_seed()
    with FilmedToolEnv(dead_scorer_env_url, revisions=1) as env:
        env.reset(subject=SUBJECT, seed=seed)
        for painting in (FIRST, REVISED):
            env.paint(painting)
        record = scored(env, tmp_path, seed)
    assert record.reward is None and record.dropped_reason
    assert [turn.render.status for turn in record.turns] == ["passed", "passed"]  # painted, but not scored
    timings = StepTimings(generation_s=0, render_s=0, scoring_s=0, training_s=0)
    assert summarise(1, [record], timings, "now").dropped == 1


def test_a_session_lost_between_turns_drops_the_rollout_never_0(server_url, tmp_path):
    """The client's socket is gone between the paintings (as a call that timed out leaves it): the revision begins the
    episode again and is painted, but the first painting's reward went with the session."""
    seed = fresh_seed()
    with FilmedToolEnv(server_url, revisions=1) as env:
        env.reset(subject=SUBJECT, seed=seed)
        env.paint(FIRST)
        env._env.close()
        assert "no revisions remain" in env.paint(REVISED)  # painted, as the episode's last
        record = scored(env, tmp_path, seed)
    assert record.reward is None and record.dropped_reason == LOST_EPISODE
    assert [turn.code.strip() for turn in record.turns] == [FIRST.strip(), REVISED.strip()]
    assert [turn.render.status for turn in record.turns] == ["passed", "passed"]


# The config without a GPU, as tests/trainer/test_recipe.py reads it.
ARGS = ["--env_url", "http://127.0.0.1:8000", "--model_name_or_path", "tiny", "--use_cpu"]


def test_revisions_are_a_recipe_key_and_a_flag_with_the_environments_defaults(tmp_path):
    plain = config.parse(ARGS)
    assert (plain.revisions, plain.revision_bonus) == (0, 0.0)
    recipe = tmp_path / "revising.yaml"
    recipe.write_text("revisions: 2\nrevision_bonus: 0.5\n")
    read = config.parse(["--config", str(recipe), *ARGS, "--revision_bonus", "1.5"])  # the command line wins
    assert (read.revisions, read.revision_bonus, read.compiled_generation) == (2, 1.5, False)


@pytest.mark.parametrize(
    ("flags", "refusal"),
    [
        (["--revisions", "9"], "--revisions 9"),  # past MAX_REVISIONS, the episode option's own bound
        (["--revisions", "1", "--revision_bonus", "11"], "--revision_bonus 11.0"),
        (["--revision_bonus", "0.5"], "needs --revisions"),
        (["--revisions", "1", "--multi_objective_aggregation", "normalize_then_sum"], "one number"),
        (["--revisions", "1", "--compiled_generation", "true"], "static cache"),
    ],
)
def test_what_a_run_with_revisions_cannot_do_is_refused_before_it_starts(flags, refusal, capsys):
    with pytest.raises(SystemExit):
        config.parse([*ARGS, *flags])
    assert refusal in capsys.readouterr().err

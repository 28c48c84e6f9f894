"""examples/trl_grpo.py with revisions, as CI runs it: a tiny random vision-language policy built here paints, reads
the critique and the painting, and paints its revision, against a real environment server (Chromium, HTTP).

The policy is Gemma 3's architecture at toy size speaking Qwen3.5's tool calls: Gemma 3's processor reads images only,
where Qwen's also need a video processor, hence torchvision, of which no CPU build installs here. A random model writes
no tool call, so the policy is first trained, supervised, on one real episode of the run's own row: paint
two-washes.js, read the answer, paint the revision, stop. That episode's sketches carry one comment more: the same
pictures (so the same critiques) under other render keys, so the run's own paintings are drawn anew."""

from __future__ import annotations

import functools
import runpy
import sys
from dataclasses import dataclass, field

import pytest
import torch
from transformers import (
    Gemma3Config,
    Gemma3ForConditionalGeneration,
    Gemma3ImageProcessorPil,
    Gemma3Processor,
    PreTrainedTokenizerFast,
)
from transformers.models.gemma3.modeling_gemma3 import Gemma3Model
from transformers.utils.chat_template_utils import render_jinja_template
from trl import GRPOTrainer
from trl.chat_template_utils import qwen3_5_nothink_chat_template, qwen3_5_template
from trl.data_utils import prepare_multimodal_messages

from tests.conftest import ROOT, fresh_seed, sketch
from tests.trainer.conftest import corpus
from watercolour_env.client import WatercolourEnv
from watercolour_env.critique import CRITIQUE_VERSION
from watercolour_env.tool_env import WatercolourToolEnv
from watercolour_harness.tiny_policy import build_tokenizer, learn_turns, save_policy
from watercolour_shared.prompts import system_prompt

EXAMPLE = ROOT / "examples" / "trl_grpo.py"
SUBJECT = "a red poppy"
FIRST = sketch("two-washes.js")
REVISED = FIRST.replace("#b83b5e", "#3b6fd9")  # the revision: the second wash in blue
WARM_UP_MARK = "// warm-up\n"
IMAGE_TOKENS = 64  # Gemma 3 pools the 16 x 16 patches of a 256 x 256 picture to 8 x 8, Qwen3.5's 64 tokens
IMAGE_MARKS = {"boi_token": "<start_of_image>", "image_token": "<image_soft_token>", "eoi_token": "<end_of_image>"}
RUN = (
    "--max_steps", "1", "--num_generations", "2", "--per_device_train_batch_size", "2", "--temperature", "0.3",
    "--use_cpu", "--bf16", "false", "--gradient_checkpointing", "false", "--report_to", "none", "--logging_steps", "1",
    "--save_strategy", "no", "--revisions", "1", "--images", "--subjects", SUBJECT,
)  # fmt: skip


def call(painting: str) -> dict:
    painted = {"type": "function", "function": {"name": "paint", "arguments": {"sketch": painting}}}
    return {"role": "assistant", "content": "", "tool_calls": [painted]}


@pytest.fixture(scope="module")
def seed() -> int:
    """The run's row seed, fresh: its paintings are in no cache yet."""
    return fresh_seed()


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """The policy's matrices are tiny: on two shared cores one thread is many times faster than threads that contend."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def episode(server_url, seed) -> list[dict]:
    """The row's real episode, as the policy is to live it: brief, painting, critique and picture, revision, stop."""
    with WatercolourToolEnv(server_url, revisions=1, images=True) as env:
        brief = env.reset(subject=SUBJECT, seed=seed)
        first, last = (env.paint(painting + WARM_UP_MARK) for painting in (FIRST, REVISED))
    return [
        {"role": "system", "content": system_prompt()},
        {"role": "user", "content": brief},  # TRL appends the brief to the row's empty user message
        call(FIRST),
        {"role": "tool", "name": "paint", "content": first},
        call(REVISED),
        {"role": "tool", "name": "paint", "content": last},
        {"role": "assistant", "content": ""},
    ]


def vlm_processor(text: str) -> Gemma3Processor:
    """Tokens whole lines long, trained on the sketches, the prompts and the episode's text (a tiny model learns a
    short sequence faster), with Qwen's tool-call tokens and Gemma's image tokens. Qwen3.5's chat template, a picture
    written as Gemma's one placeholder (the processor expands it), and TRL's parser for Qwen3.5's tool calls."""
    trained = build_tokenizer(corpus() + [text], vocab_size=4096, whole_lines=True)
    trained.add_tokens(["<think>", "</think>", "<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>"])
    trained.add_special_tokens({"extra_special_tokens": list(IMAGE_MARKS.values())})
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=trained.backend_tokenizer, eos_token="<|im_end|>", pad_token="<|endoftext|>", **IMAGE_MARKS
    )
    tokenizer.response_template = qwen3_5_template
    template = qwen3_5_nothink_chat_template.replace("<|vision_start|><|image_pad|><|vision_end|>", IMAGE_MARKS["boi_token"])
    images = Gemma3ImageProcessorPil(size={"height": 256, "width": 256})
    return Gemma3Processor(image_processor=images, tokenizer=tokenizer, chat_template=template, image_seq_length=IMAGE_TOKENS)


def vlm(tokenizer) -> Gemma3ForConditionalGeneration:
    token = tokenizer.convert_tokens_to_ids
    text = dict(
        vocab_size=len(tokenizer), hidden_size=128, intermediate_size=256, num_hidden_layers=2, num_attention_heads=2,
        num_key_value_heads=1, head_dim=64, query_pre_attn_scalar=64, layer_types=["full_attention"] * 2,
        eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id, bos_token_id=None,
    )  # fmt: skip
    vision = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2, image_size=256, patch_size=16)
    config = Gemma3Config(
        text_config=text, vision_config=vision, mm_tokens_per_image=IMAGE_TOKENS, tie_word_embeddings=False,
        boi_token_index=token(IMAGE_MARKS["boi_token"]), eoi_token_index=token(IMAGE_MARKS["eoi_token"]),
        image_token_index=token(IMAGE_MARKS["image_token"]), architectures=["Gemma3ForConditionalGeneration"],
    )  # fmt: skip
    torch.manual_seed(0)
    return Gemma3ForConditionalGeneration(config)


def encode(processor, messages: list[dict], **options):
    tools = [WatercolourToolEnv.paint]
    messages = prepare_multimodal_messages(messages)  # as TRL hands a VLM's processor its messages
    return processor.apply_chat_template(messages, tools=tools, tokenize=True, return_dict=True, return_tensors="pt", **options)


@pytest.fixture(scope="module")
def tiny_vlm(episode, tmp_path_factory):
    text = render_jinja_template([episode], tools=[WatercolourToolEnv.paint], chat_template=qwen3_5_nothink_chat_template)[0][0]
    processor = vlm_processor(text)
    model = vlm(processor.tokenizer)
    assert learn_turns(model, functools.partial(encode, processor), episode, processor.tokenizer.eos_token_id) < 0.05
    folder = save_policy(model, processor.tokenizer, tmp_path_factory.mktemp("tiny-vlm"))
    processor.save_pretrained(folder)  # TRL loads the processor, and so knows a VLM
    return folder


@dataclass
class Recorded:
    """What the environment answered each turn, what TRL was handed as each rollout's reward, what the policy read."""

    turns: dict[int, list] = field(default_factory=dict)  # per client: (action, observation) of each step
    rewards: list[float | None] = field(default_factory=list)
    inputs: list[dict] = field(default_factory=list)  # each forward: its tokens, its image tokens a row, whether it trained
    pictures: list[tuple] = field(default_factory=list)  # each batch of pictures the vision tower encoded, and whether it trained
    logs: list[dict] = field(default_factory=list)

    def step(self, env, result, action):
        self.turns.setdefault(id(env), []).append((action, result.observation))

    def forward(self, model, _, input_ids, **__):
        images = (input_ids == model.config.image_token_id).sum(-1).tolist()
        self.inputs.append({"ids": input_ids, "images": images, "trains": torch.is_grad_enabled()})

    def encode(self, model, _, *args, **kwargs):
        pixels = args[0] if args else kwargs["pixel_values"]
        self.pictures.append((list(pixels.shape), torch.is_grad_enabled()))


def spy(monkeypatch, cls, name: str, record):
    """`cls.name` as it was, and `record(instance, answer, *args, **kwargs)` after each call."""
    real = getattr(cls, name)

    @functools.wraps(real)  # TRL and generate read the signature
    def spied(self, *args, **kwargs):
        answer = real(self, *args, **kwargs)
        record(self, answer, *args, **kwargs)
        return answer

    monkeypatch.setattr(cls, name, spied)


def without_num_crops(generate_single_turn):
    """TRL 1.16 hands generate every output of the image processor; Gemma 3's processor leaves out `num_crops` (its
    `unused_input_names`), TRL does not, and generate refuses it. The same inputs, as Gemma 3's processor gives them."""

    @functools.wraps(generate_single_turn)
    def generate(self, prompt_ids, images, multimodal_fields, *args, **kwargs):
        fields = {key: value for key, value in multimodal_fields.items() if key != "num_crops"}
        return generate_single_turn(self, prompt_ids, images, fields, *args, **kwargs)

    return generate


def run_example(policy, server_url, seed: int, out, *flags: str) -> Recorded:
    """The example's own `__main__`, with its real parts watched."""
    recorded = Recorded()
    argv = ["trl_grpo.py", "--model_name_or_path", str(policy), "--env_url", server_url, "--output_dir", str(out)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "argv", [*argv, "--seed", str(seed), *RUN, *flags])
        spy(patch, WatercolourEnv, "step", recorded.step)
        spy(patch, WatercolourToolEnv, "get_reward", lambda env, reward: recorded.rewards.append(reward))
        spy(patch, GRPOTrainer, "log", lambda trainer, _, logs, *__: recorded.logs.append(logs))
        spy(patch, Gemma3Model, "forward", recorded.forward)  # generation's and the update's (TRL's fused head) alike
        spy(patch, Gemma3Model, "get_image_features", recorded.encode)
        patch.setattr(GRPOTrainer, "_generate_single_turn", without_num_crops(GRPOTrainer._generate_single_turn))
        runpy.run_path(str(EXAMPLE), run_name="__main__")
    return recorded


@pytest.fixture(scope="module")
def revised_run(tiny_vlm, server_url, seed, tmp_path_factory) -> Recorded:
    return run_example(tiny_vlm, server_url, seed, tmp_path_factory.mktemp("run"), "--max_completion_length", "512")


def test_every_turn_of_every_rollout_is_a_real_render_critique_and_reward(revised_run):
    episodes = list(revised_run.turns.values())
    assert len(episodes) == 2  # one group of two rollouts
    for turns in episodes:
        assert [action.reply.strip() for action, _ in turns] == [FIRST.strip(), REVISED.strip()]  # the policy's own calls
        for _, observation in turns:
            assert observation.status == "passed" and observation.render.status == "passed"
            assert observation.critique.startswith("The sketch passed the gate.") and "Paint covers" in observation.critique
            assert observation.critique_version == CRITIQUE_VERSION  # the critique module's words
        assert turns[0][1].render.png_base64 and not turns[0][1].done  # the picture went back to the policy
        last = turns[-1][1]
        assert last.done and last.reward == last.breakdown.total > 0
    paintings = [observation.render for turns in episodes for _, observation in turns]
    assert sum(not render.cached for render in paintings) == 2  # each painting drawn once in this run, then cached
    finals = sorted(turns[-1][1].reward for turns in episodes)
    assert sorted(revised_run.rewards) == finals  # TRL was handed the environment's rewards, none None
    (logged,) = [log for log in revised_run.logs if "rewards/WatercolourToolEnv/mean" in log]
    assert logged["rewards/WatercolourToolEnv/mean"] == pytest.approx(sum(finals) / 2)
    assert logged["tools/call_frequency"] == 2.0 and logged["tools/failure_frequency"] == 0.0


def test_every_turn_of_a_group_paints_with_its_rows_seed(revised_run, seed):
    assert {action.seed for turns in revised_run.turns.values() for action, _ in turns} == {seed}


def test_the_painting_and_its_critique_reach_the_policy(revised_run, tiny_vlm):
    """The second turn is generated from the first painting, encoded and in 64 image tokens, and its critique; the
    update trains on them."""
    assert revised_run.pictures == [([2, 3, 256, 256], False)] * 2 + [([2, 3, 256, 256], True)]  # turns 2 and 3, update
    prefills = [step for step in revised_run.inputs if step["ids"].shape[1] > 1]  # each turn's prompt, then the update
    both = [IMAGE_TOKENS] * 2
    assert [(step["images"], step["trains"]) for step in prefills] == [([0, 0], 0), (both, 0), (both, 0), (both, 1)]
    critique = next(iter(revised_run.turns.values()))[0][1].critique
    assert critique in PreTrainedTokenizerFast.from_pretrained(tiny_vlm).decode(prefills[1]["ids"][0])


def test_a_tool_answer_past_the_completion_budget_is_dropped_and_the_painting_still_counts(tiny_vlm, server_url, seed, tmp_path):
    """TRL drops (never truncates) a tool answer that would overflow max_completion_length: the rollout ends on its
    first painting, which the policy never saw, and the environment scores it as the episode's last."""
    run = run_example(tiny_vlm, server_url, seed, tmp_path / "run", "--max_completion_length", "40")
    for turns in run.turns.values():
        assert [action.reply.strip() for action, _ in turns] == [FIRST.strip()] * 2  # painted, then handed in
        assert [action.include_png for action, _ in turns] == [True, False]
        last = turns[-1][1]
        assert last.done and last.reward == last.breakdown.total > 0
    assert sorted(run.rewards) == sorted(turns[-1][1].reward for turns in run.turns.values())
    assert not run.pictures and not any(any(step["images"]) for step in run.inputs)  # the picture never reached the policy
    (logged,) = [log for log in run.logs if "completions/max_length" in log]
    assert logged["completions/max_length"] <= 40 and logged["tools/call_frequency"] == 1.0

"""Real GRPO steps of the launch script's own trainer (trainer/watercolour_trainer/grpo_trainer.py, the recipe
trainer/recipes/judge-led.yaml) on one GPU, against an environment over HTTP: per step, generation, render and
scoring, training and the whole step; compile time and compiled graphs on their own; peak GPU memory.

The policy is Qwen3.5-35B-A3B's architecture with random bf16 weights, built on the GPU (no download), and a
tokenizer made here whose vocabulary spans the model's ids. Random weights write random text, so every
completion is forced to its full length (min = max new tokens): the generation times are those of
full-length completions. The environment is bench/length_only_env.py (the real HTTP contract; random text
would fail the gate in milliseconds anyway): render and scoring here are the HTTP round trip, not a render.

    python bench/grpo_step_bench.py --size full --steps 2 --out bench/results/grpo-step-35b-h200.json
    python bench/grpo_step_bench.py --size full --prompts-per-step 4 --steps 2 --out ...
    python bench/grpo_step_bench.py --size tiny --tokens 16 --compiled-generation   (CPU smoke run)
"""

from __future__ import annotations

import argparse
import json
import platform
import tempfile
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path

import peft
import torch
import transformers
import trl
from length_only_env import WEIGHTS, Handler
from tokenizers import Tokenizer, models, pre_tokenizers
from trainer_bench import build
from transformers import PreTrainedTokenizerFast, TrainerCallback

from watercolour_demo.tiny_policy import CHAT_TEMPLATE, SPECIAL_TOKENS
from watercolour_shared.reward import format_weights
from watercolour_shared.run_dir import RunReader, RunWriter
from watercolour_shared.subjects import DEFAULT_SUBJECT
from watercolour_trainer import options as launch_options
from watercolour_trainer.compiled_generation import longest_prompt
from watercolour_trainer.grpo_trainer import build_trainer
from watercolour_trainer.replicas import EnvReplicas

ROOT = Path(__file__).resolve().parent.parent
RECIPE = ROOT / "trainer" / "recipes" / "judge-led.yaml"
SUBJECTS = [DEFAULT_SUBJECT, "a blue iris", "a white magnolia", "a fern sprig"]


def wide_tokenizer(vocab_size: int) -> PreTrainedTokenizerFast:
    """Every id the model can sample decodes to a word (`t123`); the chat template is the tiny policy's."""
    vocab = {token: i for i, token in enumerate(SPECIAL_TOKENS)}
    vocab |= {f"t{i}": i for i in range(len(SPECIAL_TOKENS), vocab_size)}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token=f"t{len(SPECIAL_TOKENS)}"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, eos_token="<|im_end|>", pad_token="<|endoftext|>")
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


class PeakMemory(TrainerCallback):
    """The GPU's peak allocation in each step."""

    def __init__(self):
        self.peaks: list[float] = []

    def on_step_begin(self, args, state, control, **kwargs):
        if torch.cuda.is_available():
            torch.cuda.reset_peak_memory_stats()

    def on_step_end(self, args, state, control, **kwargs):
        if torch.cuda.is_available():
            self.peaks.append(round(torch.cuda.max_memory_allocated() / 2**30, 1))


def triton_version() -> str | None:
    try:
        import triton
    except ImportError:
        return None
    return triton.__version__


def serve_environment() -> str:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", choices=("full", "tiny"), default="tiny")
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--tokens", type=int, default=3072, help="every completion's length (forced)")
    parser.add_argument("--prompts-per-step", type=int, default=1)
    parser.add_argument("--per-device-batch-size", type=int, default=1)
    parser.add_argument("--compiled-generation", action=argparse.BooleanOptionalAction, help="default: on with CUDA")
    parser.add_argument("--merged-lora-generation", action=argparse.BooleanOptionalAction, help="default: the trainer's")
    parser.add_argument("--decode-experts", choices=launch_options.DECODE_EXPERTS, help="default: the trainer's")
    parser.add_argument("--run-dir", type=Path, help="where the run's metrics.jsonl and film go (default: a temporary folder)")
    parser.add_argument("--out")
    args = parser.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"

    url = serve_environment()
    run_dir = args.run_dir or Path(tempfile.mkdtemp(prefix="grpo-step-bench-"))
    weights = format_weights(WEIGHTS)
    subjects = [flag for subject in SUBJECTS[: args.prompts_per_step] for flag in ("--subject", subject)]
    compiled = [] if args.compiled_generation is None else [f"--{'' if args.compiled_generation else 'no-'}compiled-generation"]
    if args.merged_lora_generation is not None:
        compiled.append(f"--{'' if args.merged_lora_generation else 'no-'}merged-lora-generation")
    if args.decode_experts:
        compiled += ["--decode-experts", args.decode_experts]
    options = launch_options.parse(
        ["--recipe", str(RECIPE), "--env-url", url, "--model", f"random qwen3_5_moe ({args.size})", "--weights", weights,
         "--steps", str(args.steps), "--max-completion-length", str(args.tokens), "--min-completion-length", str(args.tokens),
         "--prompts-per-step", str(args.prompts_per_step), "--per-device-batch-size", str(args.per_device_batch_size),
         *subjects, *compiled, "--save-steps", "100000", "--report-to", "none", "--run-dir", str(run_dir)]
    )  # fmt: skip
    if device == "cpu":
        options.bf16 = False  # the CPU has no fast bf16 matmuls; the tiny model is built in bf16 and cast below

    started = time.perf_counter()
    model = build(args.size, device)
    if device == "cpu":
        model = model.float()
    built_s = round(time.perf_counter() - started, 1)
    tokenizer = wide_tokenizer(model.config.text_config.vocab_size)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id

    run = RunWriter(options.run_dir)
    replicas = EnvReplicas(options.env_url)
    trainer = build_trainer(options, launch_options.mix_weights(options), run, model, tokenizer, replicas)
    memory = PeakMemory()
    trainer.add_callback(memory)
    trainer.train()

    steps = []
    for metrics, peak in zip(RunReader(run.root).metrics(), memory.peaks or [None] * args.steps, strict=True):
        t = metrics.timings
        whole = t.generation_s + t.render_s + t.scoring_s + t.training_s
        steps.append(
            {"step": metrics.step, "rollouts": metrics.rollouts, "groups": metrics.groups, "generation_s": t.generation_s,
             "of_which_compile_s": t.compile_s, "compiled_graphs": metrics.compiled_graphs,
             "render_and_scoring_s": round(t.render_s + t.scoring_s, 2), "training_s": t.training_s,
             "step_s": round(whole, 1), "step_without_compile_s": round(whole - t.compile_s, 1), "peak_gib": peak}
        )  # fmt: skip
    report = {
        "what": "real GRPOTrainer steps of the launch script's trainer (judge-led recipe, LoRA all-linear r=16, "
        "gradient checkpointing, bf16) against bench/length_only_env.py over HTTP; every completion forced to "
        f"{args.tokens} tokens",
        "model": f"qwen3_5_moe ({args.size}), random weights, built on the {device} in {built_s} s",
        "device": torch.cuda.get_device_name() if device == "cuda" else platform.processor(),
        "compiled_generation": launch_options.compiles_generation(options),
        "merged_lora_generation": options.merged_lora_generation,
        "decode_experts": options.decode_experts,
        "prompts_per_step": options.prompts_per_step,
        "num_generations": options.num_generations,
        "per_device_batch_size": options.per_device_batch_size,
        "gradient_accumulation_steps": options.gradient_accumulation_steps,
        "prompt_tokens": longest_prompt(tokenizer, [trainer.train_dataset[0]["prompt"]]),
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__, "trl": trl.__version__,
                     "peft": peft.__version__, "triton": triton_version()},
        "steps": steps,
    }  # fmt: skip
    text = json.dumps(report, indent=2)
    print(text, flush=True)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()

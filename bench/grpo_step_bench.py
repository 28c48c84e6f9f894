"""Real GRPO steps of the launch script's own trainer (trainer/watercolour_trainer/grpo_trainer.py, the recipe
trainer/recipes/judge-led.yaml) on one GPU, against an environment over HTTP: per step, generation, render and
scoring, training and the whole step; compile time and compiled graphs on their own; peak GPU memory.

The policy is Qwen3.5-35B-A3B's architecture with random bf16 weights, built on the GPU (no download), and a
tokenizer made here whose vocabulary spans the model's ids. Random weights write random text, so every
completion is forced to its full length (min = max new tokens): the generation times are those of
full-length completions. The environment is bench/length_only_env.py (the real HTTP contract; random text
would fail the gate in milliseconds anyway): render and scoring here are the HTTP round trip, not a render.

`--envs` names each step's environment instead: `length-only`, or a WebGL mode of the real environment
(`gpu-egl`, `gpu-vulkan`, `software`), started on this host beside the trainer, which renders and scores real
sketches of the demo's generator in place of the random text (bench/step_env.py says how, and what is measured;
bench/h200_env_step.sh how it ran on a bare H200 machine).

    python bench/grpo_step_bench.py --size full --steps 2 --out bench/results/grpo-step-35b-h200.json
    python bench/grpo_step_bench.py --size full --prompts-per-step 4 --steps 2 --out ...
    python bench/grpo_step_bench.py --size full --envs length-only,length-only,gpu-egl,software,gpu-egl,software
    python bench/grpo_step_bench.py --size tiny --tokens 16 --compiled-generation   (CPU smoke run)
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import tempfile
import time
from pathlib import Path

import peft
import torch
import transformers
import trl
from length_only_env import WEIGHTS
from step_env import LENGTH_ONLY, WEBGL_MODES, StepEnvironments, parse_envs
from tokenizers import Tokenizer, models, pre_tokenizers
from trainer_bench import build
from transformers import PreTrainedTokenizerFast, TrainerCallback

from watercolour_harness import record
from watercolour_harness.tiny_policy import CHAT_TEMPLATE, SPECIAL_TOKENS
from watercolour_shared.reward import format_weights
from watercolour_shared.run_dir import RunReader, RunWriter
from watercolour_shared.subjects import DEFAULT_SUBJECT
from watercolour_trainer import config as launch_config
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", choices=("full", "tiny"), default="tiny")
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--tokens", type=int, default=3072, help="every completion's length (forced)")
    parser.add_argument("--prompts-per-step", type=int, default=1)
    parser.add_argument("--per-device-batch-size", type=int, default=1)
    parser.add_argument("--compiled-generation", action=argparse.BooleanOptionalAction, help="default: on with CUDA")
    parser.add_argument("--merged-lora-generation", action=argparse.BooleanOptionalAction, help="default: the trainer's")
    parser.add_argument("--decode-experts", choices=launch_config.DECODE_EXPERTS, help="default: the trainer's")
    parser.add_argument("--run-dir", type=Path, help="where the run's metrics.jsonl and film go (default: a temporary folder)")
    parser.add_argument("--envs", type=parse_envs, help="each step's environment, comma-separated (sets --steps): length-only, "
                        f"or a WebGL mode of the real one: {', '.join(WEBGL_MODES)}")  # fmt: skip
    parser.add_argument("--browsers", type=int, default=8, help="each real environment's browsers")
    parser.add_argument("--chromium", help="the real environments' Chromium (default: theirs, /usr/bin/chromium)")
    parser.add_argument("--assets", help="node_modules holding p5 and p5.brush (default: the project's)")
    parser.add_argument("--redis-url", help="the real environments' and the scorer's Redis (default: theirs)")
    parser.add_argument("--sketch-seed", type=int, default=0, help="step s, rollout i paints the sketch of seed + 1000 s + i")
    parser.add_argument("--random-completions", action="store_true", help="no decoding: each rollout is --tokens random "
                        "ids drawn at once (none special, no EOS), so a step measures the training side alone (its time "
                        "and peak memory); generation_s is then the draw, not a generation")  # fmt: skip
    parser.add_argument("--out")
    args = parser.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    envs = args.envs or [LENGTH_ONLY] * args.steps
    args.steps = len(envs)
    real = any(env != LENGTH_ONLY for env in envs)

    run_dir = args.run_dir or Path(tempfile.mkdtemp(prefix="grpo-step-bench-"))
    run_dir.mkdir(parents=True, exist_ok=True)
    # Length-only alone: its own weights, as before. With a real environment: the recipe's own (every term).
    weights = [] if real else ["--weights", format_weights(WEIGHTS)]
    switches = {"compiled_generation": args.compiled_generation, "merged_lora_generation": args.merged_lora_generation}
    compiled = [word for name, on in switches.items() if on is not None for word in (f"--{name}", str(on).lower())]
    if args.decode_experts:
        compiled += ["--decode_experts", args.decode_experts]
    # The CPU has no fast bf16 matmuls: float32 there (the tiny model is built in bf16 and cast below).
    dtype = ["--bf16", "false"] if device == "cpu" else []
    environments = StepEnvironments(envs, SUBJECTS, args.prompts_per_step, args, logs=run_dir)
    options = launch_config.parse(
        ["--config", str(RECIPE), "--env_url", environments.url, "--model_name_or_path", f"random qwen3_5_moe ({args.size})",
         *weights, "--max_steps", str(args.steps), "--max_completion_length", str(args.tokens),
         "--min_completion_length", str(args.tokens), "--prompts_per_step", str(args.prompts_per_step),
         "--per_device_train_batch_size", str(args.per_device_batch_size), "--subjects", *SUBJECTS[: args.prompts_per_step],
         *compiled, *dtype, "--save_steps", "100000", "--report_to", "none", "--output_dir", str(run_dir)]
    )  # fmt: skip
    environments.start(options.num_generations)
    try:
        run(args, options, envs, environments, device)
    finally:
        environments.close()


def run(args, options, envs: list[str], environments: StepEnvironments, device: str) -> None:
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
    weights = options.mix_weights()
    trainer = build_trainer(options, run, model, tokenizer, replicas)
    if args.random_completions:
        draw_random_completions(trainer, args.tokens, model.config.text_config.vocab_size)
    memory = PeakMemory()
    trainer.add_callback(memory)
    trainer.add_callback(environments.callback())

    def report() -> dict:
        steps = step_rows(run, memory, envs, environments)
        return {
            **record.header("grpo-step", device=torch.cuda.get_device_name() if device == "cuda" else platform.processor()),
            "what": "real GRPOTrainer steps of the launch script's trainer (judge-led recipe, LoRA all-linear r=16, "
            "gradient checkpointing, bf16) against "
            + ("each step's environment (envs)" if environments.real_modes else "bench/length_only_env.py")
            + f" over HTTP; every completion forced to {args.tokens} tokens",
            "model": f"qwen3_5_moe ({args.size}), random weights, built on the {device} in {built_s} s",
            "compiled_generation": options.compiled_generation,
            "merged_lora_generation": options.merged_lora_generation,
            "decode_experts": options.decode_experts,
            "random_completions": args.random_completions,
            "prompts_per_step": options.prompts_per_step,
            "num_generations": options.num_generations,
            "per_device_batch_size": options.per_device_train_batch_size,
            "gradient_accumulation_steps": options.gradient_accumulation_steps,
            "prompt_tokens": longest_prompt(tokenizer, [trainer.train_dataset[0]["prompt"]]),
            "reward_weights": weights.model_dump(),
            "versions": {"torch": torch.__version__, "transformers": transformers.__version__, "trl": trl.__version__,
                         "peft": peft.__version__, "triton": triton_version()},
            "envs": envs,
            **({"environments": environments.described_setup()} if environments.real_modes else {}),
            "steps": steps,
            **({"by_env_after_step_1": by_env(steps)} if environments.real_modes else {}),
        }  # fmt: skip

    def progress(step: int) -> None:
        so_far = report()
        text = json.dumps(so_far, indent=2)
        print(json.dumps(so_far["steps"][-1]), flush=True)
        if args.out:
            Path(args.out).write_text(text + "\n")

    trainer.add_callback(Progress(progress))
    trainer.train()
    text = json.dumps(report(), indent=2)
    print(text, flush=True)
    if args.out:
        Path(args.out).write_text(text + "\n")


def draw_random_completions(trainer, tokens: int, vocab_size: int) -> None:
    """In place of TRL 1.16's `_generate_single_turn` (and the merged-LoRA, compiled generation around it): `tokens`
    random ids for each rollout, none of them special, as the forced full-length completions of random weights are."""

    def draw(prompt_ids, *args, **kwargs):
        return [torch.randint(len(SPECIAL_TOKENS), vocab_size, (tokens,)).tolist() for _ in prompt_ids], None

    trainer._generate_single_turn = draw


class Progress(TrainerCallback):
    """After each step (StepMonitor has written its metrics by then): the report so far, so a run cut short keeps it."""

    def __init__(self, on_step):
        self.on_step = on_step

    def on_step_end(self, args, state, control, **kwargs):
        self.on_step(state.global_step)


def step_rows(run: RunWriter, memory: PeakMemory, envs: list[str], environments: StepEnvironments) -> list[dict]:
    rows = []
    metrics_so_far = RunReader(run.root).metrics()
    peaks = memory.peaks or [None] * len(metrics_so_far)
    for metrics, peak in zip(metrics_so_far, peaks, strict=True):
        t = metrics.timings
        whole = t.generation_s + t.render_s + t.scoring_s + t.training_s
        row = {"step": metrics.step, "env": envs[metrics.step - 1], "rollouts": metrics.rollouts, "groups": metrics.groups,
               "generation_s": t.generation_s, "of_which_compile_s": t.compile_s, "compiled_graphs": metrics.compiled_graphs,
               "render_and_scoring_s": round(t.render_s + t.scoring_s, 2), "training_s": t.training_s,
               "step_s": round(whole, 1), "step_without_compile_s": round(whole - t.compile_s, 1), "peak_gib": peak}  # fmt: skip
        if environments.real_modes:
            row |= {"render_s": t.render_s, "scoring_s": t.scoring_s, "reward_mean": metrics.reward_mean,
                    "gate_pass_rate": metrics.gate_pass_rate}  # fmt: skip
            calls = [call for call in environments.calls if call["step"] == metrics.step]
            if calls:
                row["env_calls"] = calls
        rows.append(row)
    return rows


def by_env(steps: list[dict]) -> dict:
    """Means over the steps after the first (the first compiles), by environment."""
    summary = {}
    for env in dict.fromkeys(row["env"] for row in steps):
        rows = [row for row in steps if row["env"] == env and row["step"] > 1]
        if not rows:
            continue
        calls = [call for row in rows for call in row.get("env_calls", [])]
        mean = lambda values: round(statistics.fmean(values), 2)  # noqa: E731
        summary[env] = {
            "steps": [row["step"] for row in rows],
            **{key: mean([row[key] for row in rows]) for key in ("step_s", "generation_s", "render_and_scoring_s", "training_s")},
        }
        if calls:
            summary[env] |= {
                "env_wall_s": mean([c["wall_s"] for c in calls]),
                "env_core_s": mean([c["env_core_s"] for c in calls]),
                "machine_core_s": mean([c["machine_core_s"] for c in calls]),
                "cores_busy": mean([c["cores_busy"] for c in calls]),
                "env_rss_mib_peak": max(c["env_rss_mib_peak"] for c in calls),
                "passed": f"{sum(c['passed'] for c in calls)}/{sum(len(c['sketch_seeds']) for c in calls)}",
            }
    return summary


if __name__ == "__main__":
    main()

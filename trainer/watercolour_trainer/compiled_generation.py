"""Generation on the static-cache, compiled path, and the count of what torch.compile built at each step.

Transformers compiles the decode step when the cache is static and `disable_compile` is off. TRL 1.16 builds
its generation config with `disable_compile=True` (and refuses the key in `generation_kwargs`), so `enable`
turns it back on the trainer's own config. TRL already switches gradient checkpointing off around
`generate` (it would drop the cache). Measured through GRPOTrainer on one H200 (Qwen3.5-35B-A3B with LoRA,
group of 8; bench/results/grpo-step-35b-h200-2026-12-02.json): 180 ms per decode step on the dynamic cache,
32 ms compiled.

A run should compile once per distinct shape: `CompileCount` tells a step that compiled from one that ran
what was compiled before; StepMonitor writes it to metrics.jsonl and warns when a later step compiles again.
"""

from __future__ import annotations

import contextlib
import types
from dataclasses import dataclass

from torch._dynamo.utils import compilation_time_metrics, counters
from transformers import CompileConfig


def enable(trainer, longest_prompt: int) -> None:
    """Let the trainer's generation compile: on CUDA with transformers' defaults (CUDA graphs); asked for
    elsewhere (a CPU), with plain inductor, since transformers compiles only on accelerators unless told.
    The static cache is sized once for the longest prompt: a cache that grows with a longer prompt recompiles."""
    config = trainer.generation_config
    if config.cache_implementation != "static":
        raise ValueError("compiled generation needs cache_implementation='static' (WatercolourGRPOConfig sets it)")
    config.disable_compile = False
    config.max_cache_len = longest_prompt + config.max_new_tokens
    if trainer.model.device.type != "cuda":
        config.compile_config = CompileConfig(mode="default")
        config.compile_config._compile_all_devices = True


def one_input_grad_hook(trainer) -> None:
    """Keep the policy's input-embedding hook to one through every gradient-checkpointing toggle.

    TRL switches checkpointing off and on around each generation; transformers (5.20) adds a forward hook on
    the input embeddings at every switch on and removes none at a switch off unless transformers itself
    loaded the adapter. The hooks pile up by two a step, and torch.compile guards on their number: every
    step recompiled until Dynamo's recompile limit turned compilation off. Here the next hook replaces the last.
    """
    model = trainer.model.get_base_model() if hasattr(trainer.model, "get_base_model") else trainer.model
    add_hook = model.enable_input_require_grads

    def replace_hook(self) -> None:
        self.disable_input_require_grads()
        add_hook()

    model.enable_input_require_grads = types.MethodType(replace_hook, model)


def keep_grouped_experts(trainer) -> None:
    """Decode with the experts' `grouped_mm`, as the prefill and training do, instead of transformers' switch to
    `batched_mm` for decoding (GenerationMixin._optimize_model_for_decode, transformers 5.20). batched_mm copies
    each (token, expert) pair's weights before a bmm: at batch 8 the copies were 7.6 ms of a 20.9 ms decode step
    on an H200 (bench/grpo_profile.py). grouped_mm reads the active experts' weights in place."""
    model = trainer.model.get_base_model() if hasattr(trainer.model, "get_base_model") else trainer.model
    model._optimize_model_for_decode = contextlib.nullcontext


def longest_prompt(tokenizer, prompts: list[list[dict]]) -> int:
    """Tokens in the longest of these chat prompts, as the policy sees them (no thinking block)."""
    texts = [tokenizer.apply_chat_template(p, tokenize=False, add_generation_prompt=True, enable_thinking=False) for p in prompts]
    return max(len(tokenizer(text, add_special_tokens=False).input_ids) for text in texts)


@dataclass(frozen=True)
class CompileCount:
    graphs: int  # graphs Dynamo has built in this process
    seconds: float  # time spent compiling them

    @classmethod
    def now(cls) -> CompileCount:
        return cls(counters["stats"]["unique_graphs"], sum(compilation_time_metrics.get("_compile.compile_inner", [])))

    def since(self, earlier: CompileCount) -> CompileCount:
        return CompileCount(self.graphs - earlier.graphs, round(self.seconds - earlier.seconds, 3))

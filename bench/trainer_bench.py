"""The policy's side of a GRPO step, measured: Qwen3.5-35B-A3B's full architecture with random bf16 weights,
wrapped in all-linear LoRA with gradient checkpointing, generating a group of 8 and taking one training step
on 8 sequences of 3k tokens. That is the step-time budget the environment's render must fit into.

    python bench/trainer_bench.py --size full --out bench/results/trainer-35b-h200.json   (one H200)
    python bench/trainer_bench.py --size tiny                                            (CPU smoke run)
"""

from __future__ import annotations

import argparse
import json
import platform
import time

import torch
import transformers
from peft import get_peft_model
from transformers import Qwen3_5MoeConfig, Qwen3_5MoeForConditionalGeneration

from watercolour_harness import record
from watercolour_shared.sampling import Sampling
from watercolour_trainer.lora import coverage, decoder_layer_count, lora_config

RECIPE = Sampling()  # the recipes' sampling (its completion length is the bench's own)

TINY_TEXT = dict(
    vocab_size=1024, hidden_size=64, num_hidden_layers=8, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
    linear_key_head_dim=16, linear_value_head_dim=16, linear_num_key_heads=2, linear_num_value_heads=4,
    moe_intermediate_size=32, shared_expert_intermediate_size=32, num_experts=4, num_experts_per_tok=2,
)  # fmt: skip
TINY_VISION = dict(depth=1, hidden_size=32, intermediate_size=64, num_heads=2, out_hidden_size=64)
PROMPT_TOKENS = 700  # about the system prompt plus the request


def build(size: str, device: str) -> Qwen3_5MoeForConditionalGeneration:
    """Transformers' defaults for this config are the 35B-A3B model: 40 layers, 256 experts, 8 active."""
    config = Qwen3_5MoeConfig() if size == "full" else Qwen3_5MoeConfig(text_config=TINY_TEXT, vision_config=TINY_VISION)
    torch.set_default_dtype(torch.bfloat16)
    with torch.device(device):
        model = Qwen3_5MoeForConditionalGeneration(config)
    torch.set_default_dtype(torch.float32)
    return model


def measure(device: str, work) -> dict:
    if device == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    started = time.perf_counter()
    extra = work()
    if device == "cuda":
        torch.cuda.synchronize()
    result = {"seconds": round(time.perf_counter() - started, 2), **extra}
    if device == "cuda":
        result["peak_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 1)
    return result


def generate(model, vocab: int, new_tokens: int, group: int, cap_s: float, device: str) -> dict:
    prompt = torch.randint(0, vocab, (1, PROMPT_TOKENS), device=device)

    def work():
        with torch.inference_mode():
            out = model.generate(
                prompt, **RECIPE.model_copy(update={"max_new_tokens": new_tokens}).generate_kwargs(), min_new_tokens=new_tokens,
                num_return_sequences=group, max_time=cap_s, pad_token_id=0,
            )  # fmt: skip
        done = out.shape[1] - PROMPT_TOKENS
        return {"new_tokens_asked": new_tokens, "new_tokens_done": done, "sequences": group, "capped": done < new_tokens}

    result = measure(device, work)
    result["tokens_per_s_per_sequence"] = round(result["new_tokens_done"] / result["seconds"], 1)
    result["seconds_for_all_asked"] = round(result["seconds"] * new_tokens / max(result["new_tokens_done"], 1), 1)
    return result


def train_step(model, vocab: int, sequences: int, length: int, device: str) -> dict:
    """One optimiser step over `sequences` micro-batches of one sequence, as the recipe's GA 8 x batch 1 does."""
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=5e-5)

    def work():
        for _ in range(sequences):
            ids = torch.randint(0, vocab, (1, length), device=device)
            logits = model(input_ids=ids).logits[:, :-1].float()
            token_logps = torch.log_softmax(logits, dim=-1).gather(-1, ids[:, 1:, None]).squeeze(-1)
            (-token_logps.mean() / sequences).backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return {"sequences": sequences, "tokens_per_sequence": length}

    return measure(device, work)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", choices=("full", "tiny"), default="tiny")
    parser.add_argument("--gen-tokens", type=int, nargs="*", default=[2048, 8192])
    parser.add_argument("--gen-cap-s", type=float, default=240, help="stop a generation here and report the pace")
    parser.add_argument("--train-length", type=int, default=3072, help="0 skips the training step")
    parser.add_argument("--out")
    args = parser.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"

    model = build(args.size, device)
    built = measure(device, lambda: {})  # memory of the weights alone
    vocab = model.config.text_config.vocab_size
    model = get_peft_model(model, lora_config("all-linear", r=16, alpha=32))
    covered = coverage(model, decoder_layer_count(model.config))
    report = {
        **record.header("trainer", device=torch.cuda.get_device_name() if device == "cuda" else platform.processor()),
        "model": f"qwen3_5_moe ({args.size}), random bf16 weights, all-linear LoRA r=16",
        "parameters": sum(p.numel() for p in model.parameters()),
        "trainable": sum(p.numel() for p in model.parameters() if p.requires_grad),
        "lora_coverage": covered.describe(),
        "weights_gib": built.get("peak_gib"),
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__},
    }
    model.eval()
    report["generation"] = []
    for new_tokens in args.gen_tokens:
        report["generation"].append(generate(model, vocab, new_tokens, 8, args.gen_cap_s, device))
        write(report, args.out)  # each phase is kept even if a later one runs out of time
    if args.train_length:
        model.train()
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        model.enable_input_require_grads()
        report["train_step"] = train_step(model, vocab, 8, args.train_length, device)
    write(report, args.out)


def write(report: dict, path: str | None) -> None:
    text = json.dumps(report, indent=2)
    print(text, flush=True)
    if path:
        with open(path, "w") as out:
            out.write(text + "\n")


if __name__ == "__main__":
    main()

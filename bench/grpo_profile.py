"""Where a GRPO step's GPU time goes: one compiled decode step (static cache, CUDA graphs, batch 8, the group
of 8) and one training micro-step (one sequence of prompt + 3072 tokens, gradient checkpointing, TRL's fused
LM head), on Qwen3.5-35B-A3B's architecture with random bf16 weights and all-linear LoRA r=16, as
bench/grpo_step_bench.py builds it. Issue 26.

Per variant: the decode step's pace (time of a long generation less a short one, per token), its top kernels
(torch.profiler over a 17-token generation less a 1-token one, per token), and a training micro-step's time,
top kernels and peak memory. Variants: LoRA wrapped (as now) or merged into the weights for generation;
training with and without gradient checkpointing, and with Liger's RMSNorm/SwiGLU kernels where installed.

    python bench/grpo_profile.py --out profile.json            (one H200; about 6 minutes)
    python bench/grpo_profile.py --size tiny --tokens 8        (CPU smoke run)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import time
from collections import defaultdict
from pathlib import Path

import peft
import torch
import transformers
from peft import get_peft_model
from torch.autograd import DeviceType
from torch.profiler import ProfilerActivity, profile
from trainer_bench import build
from transformers import GenerationConfig
from trl.trainer.utils import add_fused_lm_head

from watercolour_harness import record
from watercolour_shared.sampling import Sampling
from watercolour_trainer import lora_merge, moe_decode
from watercolour_trainer.lora import lora_config

PROMPT = 213  # the recipe's prompt, as grpo_step_bench.py measured it


def kernel_times(prof) -> dict[str, list]:
    """GPU time (ms) and count per kernel name."""
    out: dict[str, list] = defaultdict(lambda: [0, 0.0])
    for event in prof.events():
        if event.device_type == DeviceType.CUDA:
            out[event.name][0] += 1
            out[event.name][1] += event.device_time_total / 1e3
    return out


def top(kernels: dict[str, list], per: float = 1.0, n: int = 15) -> dict:
    total = sum(ms for _, ms in kernels.values()) / per
    rows = sorted(kernels.items(), key=lambda kv: kv[1][1], reverse=True)[:n]
    return {
        "gpu_ms": round(total, 2),
        "top": [{"kernel": name[:110], "calls": round(count / per, 1), "ms": round(ms / per, 3),
                 "share": round(ms / per / max(total, 1e-9), 3)} for name, (count, ms) in rows],
    }  # fmt: skip


def diff(a: dict, b: dict) -> dict:
    return {k: [b[k][0] - a.get(k, [0, 0.0])[0], b[k][1] - a.get(k, [0, 0.0])[1]] for k in b}


def sync() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def generate(model, prompt, tokens: int, config: GenerationConfig) -> float:
    sync()
    started = time.perf_counter()
    with torch.no_grad():
        model.generate(input_ids=prompt, attention_mask=torch.ones_like(prompt), generation_config=config,
                       max_new_tokens=tokens, min_new_tokens=tokens)  # fmt: skip
    sync()
    return time.perf_counter() - started


def decode(model, prompt, config: GenerationConfig, long: int, activities) -> dict:
    compile_s = generate(model, prompt, 9, config)
    short = generate(model, prompt, 33, config)
    longer = generate(model, prompt, 33 + long, config)
    result = {"first_call_s": round(compile_s, 1), "ms_per_token": round((longer - short) / long * 1e3, 2)}
    with profile(activities=activities) as one:
        generate(model, prompt, 1, config)
    with profile(activities=activities) as seventeen:
        generate(model, prompt, 17, config)
    result["profile_per_token"] = top(diff(kernel_times(one), kernel_times(seventeen)), per=16)
    host = diff(host_calls(one), host_calls(seventeen))
    result["host_calls_per_token"] = {name: round(count / 16, 1) for name, (count, _) in host.items() if count}
    return result


def host_calls(prof) -> dict[str, list]:
    """How often the host launched a CUDA graph, or ran the fused MoE op outside one, per name."""
    out: dict[str, list] = defaultdict(lambda: [0, 0.0])
    for event in prof.events():
        if event.device_type == DeviceType.CPU and ("GraphLaunch" in event.name or "moe_decode" in event.name):
            out[event.name][0] += 1
    return out


def check_fused_logits(model, prompt, tokens: int = 8) -> dict:
    """Greedy decoding (eager, no compile) with the fused MoE decode off and on, and with transformers' own
    batched_mm switch as a yardstick of what a change of experts kernel does to the logits."""
    base = model.get_base_model()

    def greedy() -> tuple[torch.Tensor, torch.Tensor]:
        with torch.no_grad():
            out = model.generate(input_ids=prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=tokens,
                                 min_new_tokens=tokens, do_sample=False, output_logits=True, return_dict_in_generate=True,
                                 pad_token_id=0, eos_token_id=None, disable_compile=True)  # fmt: skip
        return out.sequences[:, prompt.shape[1] :], torch.stack(out.logits, dim=1)

    def compare(tokens_a, logits_a, tokens_b, logits_b) -> dict:
        same = (tokens_a == tokens_b).all(dim=0).tolist()  # per step, every sequence
        agree = same.index(False) if False in same else len(same)  # steps whose inputs were the same
        diff = (logits_a[:, : agree + 1] - logits_b[:, : agree + 1]).abs().amax(dim=(0, 2)).tolist()
        return {"tokens_equal": all(same), "steps_agreeing": agree, "max_abs_logit_diff_per_step": [round(d, 5) for d in diff],
                "logit_scale_max_abs": round(logits_a.abs().max().item(), 3)}  # fmt: skip

    moe_decode.unfuse_decode(base)
    off_tokens, off_logits = greedy()
    again_tokens, again_logits = greedy()
    moe_decode.fuse_decode(base)
    fused, calls = moe_decode.experts, []
    moe_decode.experts = lambda block, x: calls.append(x.shape[0]) or fused(block, x)
    try:
        on_tokens, on_logits = greedy()
    finally:
        moe_decode.experts = fused
    moe_decode.unfuse_decode(base)
    before = base._optimize_model_for_decode
    base._optimize_model_for_decode = lambda: transformers.GenerationMixin._optimize_model_for_decode(base)
    base.set_experts_implementation("grouped_mm")
    batched_tokens, batched_logits = greedy()  # transformers' own switch to batched_mm while decoding
    base._optimize_model_for_decode = before
    moe_decode.fuse_decode(base)
    return {"grouped_mm_twice": compare(off_tokens, off_logits, again_tokens, again_logits),
            "fused_vs_grouped_mm": {**compare(off_tokens, off_logits, on_tokens, on_logits), "fused_calls": len(calls)},
            "batched_mm_vs_grouped_mm": compare(off_tokens, off_logits, batched_tokens, batched_logits)}  # fmt: skip


def micro_step(model, ids, labels, activities, profiled: bool) -> dict:
    def once():
        out = model(input_ids=ids, attention_mask=torch.ones_like(ids), labels=labels, fused_lm_head=True)
        (-out.log_probs.sum() / (labels != -100).sum()).backward()

    once()  # warm
    sync()
    if torch.cuda.is_available():
        torch.cuda.reset_peak_memory_stats()
    started = time.perf_counter()
    for _ in range(2):
        once()
    sync()
    result = {"seconds": round((time.perf_counter() - started) / 2, 3)}
    if torch.cuda.is_available():
        result["peak_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 1)
    if profiled:
        with profile(activities=activities) as prof:
            once()
            sync()
        result["profile"] = top(kernel_times(prof))
    model.zero_grad(set_to_none=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", choices=("full", "tiny"), default="tiny")
    parser.add_argument("--tokens", type=int, default=3072, help="completion length (the static cache and training)")
    parser.add_argument("--long", type=int, default=256, help="decode steps timed per variant")
    parser.add_argument("--skip", nargs="*", default=[], help="parts to leave out: wrapped merged train nockpt liger")
    parser.add_argument("--profile-train", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument(
        "--decode-experts",
        choices=("batched_mm", "grouped_mm"),
        default="batched_mm",
        help="grouped_mm: keep it while decoding (watercolour_trainer.compiled_generation.keep_grouped_experts)",
    )
    parser.add_argument(
        "--fused-moe-decode",
        action="store_true",
        help="decode the experts through watercolour_trainer.moe_decode's Triton kernels (logits checked against grouped_mm)",
    )
    parser.add_argument("--train-batch", type=int, default=1, help="sequences in the training micro-step")
    parser.add_argument("--out")
    args = parser.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    device_name = torch.cuda.get_device_name() if device == "cuda" else None
    report: dict = {
        **record.header("grpo-profile", device=device_name),
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__, "peft": peft.__version__},
    }
    try:
        import triton

        report["versions"]["triton"] = triton.__version__
    except ImportError:
        pass

    def save():
        text = json.dumps(report, indent=2)
        print(text, flush=True)
        if args.out:
            Path(args.out).write_text(text + "\n")

    model = build(args.size, device)
    if device == "cpu":
        model = model.float()
    vocab = model.config.text_config.vocab_size
    model = get_peft_model(model, lora_config("all-linear", r=16, alpha=32))
    add_fused_lm_head(model.get_base_model(), outputs=("log_probs", "entropy"))
    for name, parameter in model.named_parameters():  # a trained adapter: B is no longer zero
        if "lora_B" in name:
            torch.nn.init.normal_(parameter, std=1e-3)
    layers = lora_merge.lora_layers(model)
    report["lora_layers"] = len(layers)
    report["lora_base_weights_gib"] = round(sum(layer.get_base_layer().weight.numel() for layer in layers) * 2 / 2**30, 2)

    report["decode_experts"] = args.decode_experts
    if args.decode_experts == "grouped_mm":
        model.get_base_model()._optimize_model_for_decode = contextlib.nullcontext
    if args.fused_moe_decode:
        blocks = moe_decode.fuse_decode(model)
        report["fused_moe_decode"] = {"blocks": blocks, "config": moe_decode.CONFIG, "split": moe_decode.SPLIT}
    model.eval()
    config = GenerationConfig(
        **Sampling().model_dump(exclude={"max_new_tokens"}), do_sample=True, cache_implementation="static",
        max_cache_len=PROMPT + args.tokens, pad_token_id=0, eos_token_id=None, disable_compile=False,
    )  # fmt: skip
    if device == "cpu":
        config.compile_config = transformers.CompileConfig(mode="default")
        config.compile_config._compile_all_devices = True
    prompt = torch.randint(8, vocab, (8, PROMPT), device=device)
    if "wrapped" not in args.skip:
        report["decode_lora_wrapped"] = decode(model, prompt, config, args.long, activities)
        save()
    if "merged" not in args.skip:
        started = time.perf_counter()
        with lora_merge.merged_for_generation(model):
            sync()
            report["merge_s"] = round(time.perf_counter() - started, 3)
            if args.fused_moe_decode:
                report["fused_moe_decode"]["logits"] = check_fused_logits(model, prompt)
                save()
            report["decode_lora_merged"] = decode(model, prompt, config, args.long, activities)
        save()

    model.train()
    model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    model.enable_input_require_grads()
    report["train_batch"] = args.train_batch
    ids = torch.randint(8, vocab, (args.train_batch, PROMPT + args.tokens), device=device)
    labels = ids.clone()
    labels[:, :PROMPT] = -100
    if "train" not in args.skip:
        report["train_micro_step"] = micro_step(model, ids, labels, activities, profiled=args.profile_train)
        save()
    if "nockpt" not in args.skip:
        model.gradient_checkpointing_disable()
        try:
            report["train_micro_step_no_checkpointing"] = micro_step(model, ids, labels, activities, profiled=False)
        except torch.OutOfMemoryError as error:
            report["train_micro_step_no_checkpointing"] = {"error": str(error)[:200]}
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        save()
    if "liger" not in args.skip:
        try:
            from liger_kernel.transformers import apply_liger_kernel_to_qwen3_5_moe

            apply_liger_kernel_to_qwen3_5_moe(rope=False, rms_norm=True, swiglu=True, cross_entropy=False,
                                              fused_linear_cross_entropy=False, model=model.get_base_model())  # fmt: skip
            report["train_micro_step_liger"] = micro_step(model, ids, labels, activities, profiled=True)
        except Exception as error:  # noqa: BLE001 - a finding, not a failure of the profile
            report["train_micro_step_liger"] = {"error": f"{type(error).__name__}: {str(error)[:300]}"}
        save()


if __name__ == "__main__":
    main()

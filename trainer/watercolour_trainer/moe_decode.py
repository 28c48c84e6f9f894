"""Qwen3.5-MoE's sparse experts for decode-shaped inputs (a few tokens) in three Triton launches (issue 47, item 1).

transformers' grouped_mm path (`--decode_experts grouped_mm`) runs a decode step's routed experts as some twenty
kernels per layer: softmax, top-k (two kernels), the renormalisation, a sort, a gather, histc, cumsum, two
grouped-GEMM set-ups and the two cutlass grouped GEMMs, the activation, the weighting, an inverse permutation and
the sum. Here, after the router's own linear layer (one cuBLAS GEMV, as the model runs it):

1. `_route_kernel` (one program): softmax over the experts in float32, the top-k with torch.topk's choice among
   ties (the lowest expert index), the renormalisation and the cast to the weights' dtype, exactly as
   `Qwen3_5MoeTopKRouter` does it; it writes a dense (token, expert) table of routing weights, the list of the
   distinct experts chosen (in expert order) and their number.
2. `_gate_up_kernel`: one program per (distinct expert, block of the intermediate dimension) reads that
   expert's gate and up rows once for every token routed to it, and writes silu(gate) * up.
3. `_down_kernel`: one program per (block of the hidden dimension, share of the experts) reads the down
   projection once per distinct expert and sums the routing-weighted outputs in float32; the shares' partial
   sums (a few) are added by the caller, where torch.compile fuses them into the shared expert's pointwise tail.

Each distinct expert's weights are read once per step (the bytes that bound a decode step), and nothing syncs
with the host: the number of distinct experts lives on the GPU, so the step still captures as one CUDA graph.
Rounding follows the reference: the GEMMs accumulate in float32 and round to bf16 where grouped_mm's outputs
do, silu(gate) * up rounds once, the weighted sum over experts is float32 and rounds once at the end.

The switch (`fuse_decode`, the trainer's `--fused_moe_decode`) swaps it in only inside generation's decode loop
(transformers' `_optimize_model_for_decode`), only without autograd, and only up to `MAX_TOKENS` tokens; the
prefill, training and the log-probs keep the model's own experts. On a machine without CUDA the same op runs a
plain-torch version of the same arithmetic, so the switch can be tested on a CPU.

    python -m watercolour_trainer.moe_decode --tokens 8        (one GPU: the kernel against grouped_mm, one layer)
"""

from __future__ import annotations

import contextlib
import json
import os
import types

import torch
import torch.nn.functional as F

try:
    import triton
    import triton.language as tl
except ImportError:  # a CPU-only install: the op runs its torch version
    triton = None

MAX_TOKENS = 64  # tokens in one forward (batch x new tokens) up to which the fused path runs
SPLIT = 4  # shares of the experts the down kernel runs side by side (its partial sums, added by the caller)
# Block sizes. The sweep (python -m watercolour_trainer.moe_decode --sweep) on an H100 at batch 8 found BLOCK_N 64 / BLOCK_H 32
# 4% faster on one layer (146.9 against 153.6 us) and no faster in the model: these, which the GPU tests ran, stay.
CONFIG = {
    "gate_up": dict(BLOCK_N=32, BLOCK_K=128, num_warps=4, num_stages=4),
    "down": dict(BLOCK_H=16, num_warps=4, num_stages=3),
}


def configure(gate_up: dict | None = None, down: dict | None = None, split: int | None = None) -> None:
    """Other block sizes (the sweep's, or the WATERCOLOUR_MOE_DECODE_CONFIG environment variable's JSON, read at
    import: {"gate_up": {...}, "down": {...}, "split": N})."""
    global SPLIT
    CONFIG["gate_up"].update(gate_up or {})
    CONFIG["down"].update(down or {})
    SPLIT = split or SPLIT


if os.environ.get("WATERCOLOUR_MOE_DECODE_CONFIG"):
    configure(**json.loads(os.environ["WATERCOLOUR_MOE_DECODE_CONFIG"]))


def _next_pow2(n: int) -> int:
    return 1 << max(0, (int(n) - 1).bit_length())


if triton is not None:
    _TL_DTYPES = {torch.bfloat16: tl.bfloat16, torch.float16: tl.float16, torch.float32: tl.float32}

    @triton.jit
    def _route_kernel(
        logits_ptr, dense_ptr, slot_e_ptr, count_ptr, T, E, stride_lt, MAX_SLOTS,
        K_TOP: tl.constexpr, E_PAD: tl.constexpr, BLOCK_M: tl.constexpr, SLOTS_PAD: tl.constexpr, ROUND_TO: tl.constexpr,
    ):  # fmt: skip
        m = tl.arange(0, BLOCK_M)
        ex = tl.arange(0, E_PAD)
        row = m < T
        col = ex < E
        logits = tl.load(logits_ptr + m[:, None] * stride_lt + ex[None, :], mask=row[:, None] & col[None, :], other=0.0)
        logits = tl.where(col[None, :], logits.to(tl.float32), float("-inf"))
        # softmax(dtype=float32), as the router does it
        top = tl.max(logits, axis=1)
        p = tl.exp(logits - top[:, None])
        p = p / tl.sum(p, axis=1)[:, None]
        # top-k, on the logits (exact, where exp's rounding could only blur them): the largest first, and among
        # equal values the lowest index, as torch.topk picks them
        work = logits
        picked = tl.zeros([BLOCK_M, E_PAD], dtype=tl.int1)
        for _ in tl.static_range(K_TOP):
            best = tl.max(work, axis=1)
            index = tl.min(tl.where(work == best[:, None], ex[None, :], E_PAD), axis=1)
            chosen = ex[None, :] == index[:, None]
            picked = picked | chosen
            work = tl.where(chosen, float("-inf"), work)
        total = tl.sum(tl.where(picked, p, 0.0), axis=1)
        weights = tl.where(picked, p / total[:, None], 0.0)
        weights = weights.to(ROUND_TO).to(tl.float32)  # the router returns them in the model's dtype
        tl.store(dense_ptr + m[:, None] * E_PAD + ex[None, :], weights)
        # the distinct experts, in expert order
        hit = tl.max(tl.where(picked & row[:, None], 1, 0), axis=0)
        slot = tl.cumsum(hit, axis=0) - 1
        n = tl.sum(hit, axis=0)
        tl.store(slot_e_ptr + slot, ex, mask=hit > 0)
        rest = tl.arange(0, SLOTS_PAD)
        tl.store(slot_e_ptr + rest, tl.full([SLOTS_PAD], -1, tl.int32), mask=(rest >= n) & (rest < MAX_SLOTS))
        tl.store(count_ptr, n)

    @triton.jit
    def _gate_up_kernel(
        x_ptr, w_ptr, dense_ptr, slot_e_ptr, inter_ptr, T, H, INTER,
        stride_xt, stride_we, stride_wn, stride_wk,
        E_PAD: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
        EVEN_K: tl.constexpr, EVEN_N: tl.constexpr, IEEE: tl.constexpr,
    ):  # fmt: skip
        s = tl.program_id(0)
        e = tl.load(slot_e_ptr + s)
        if e < 0:
            return
        m = tl.arange(0, BLOCK_M)
        n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
        kk = tl.arange(0, BLOCK_K)
        weight = tl.load(dense_ptr + m * E_PAD + e)
        routed = (m < T) & (weight != 0.0)
        wg_ptrs = w_ptr + e.to(tl.int64) * stride_we + n[:, None] * stride_wn + kk[None, :] * stride_wk
        wu_ptrs = wg_ptrs + INTER * stride_wn
        x_ptrs = x_ptr + m[None, :] * stride_xt + kk[:, None]
        acc_g = tl.zeros([BLOCK_N, BLOCK_M], dtype=tl.float32)
        acc_u = tl.zeros([BLOCK_N, BLOCK_M], dtype=tl.float32)
        for k0 in range(0, H, BLOCK_K):
            if EVEN_K and EVEN_N:
                wg = tl.load(wg_ptrs)
                wu = tl.load(wu_ptrs)
                xt = tl.load(x_ptrs, mask=(m < T)[None, :], other=0.0)
            else:
                kmask = (k0 + kk) < H
                wmask = (n < INTER)[:, None] & kmask[None, :]
                wg = tl.load(wg_ptrs, mask=wmask, other=0.0)
                wu = tl.load(wu_ptrs, mask=wmask, other=0.0)
                xt = tl.load(x_ptrs, mask=kmask[:, None] & (m < T)[None, :], other=0.0)
            if IEEE:
                acc_g = tl.dot(wg, xt.to(wg.dtype), acc_g, input_precision="ieee")
                acc_u = tl.dot(wu, xt.to(wu.dtype), acc_u, input_precision="ieee")
            else:
                acc_g = tl.dot(wg, xt.to(wg.dtype), acc_g)
                acc_u = tl.dot(wu, xt.to(wu.dtype), acc_u)
            wg_ptrs += BLOCK_K * stride_wk
            wu_ptrs += BLOCK_K * stride_wk
            x_ptrs += BLOCK_K
        out_ty = inter_ptr.dtype.element_ty
        gate = acc_g.to(out_ty).to(tl.float32)  # grouped_mm's output, in the model's dtype
        up = acc_u.to(out_ty).to(tl.float32)
        act = gate / (1.0 + tl.exp(-gate)) * up  # silu(gate) * up, rounded once
        act = tl.where(routed[None, :], act, 0.0)
        out_ptrs = inter_ptr + s * (BLOCK_M * INTER) + m[None, :] * INTER + n[:, None]
        tl.store(out_ptrs, act.to(out_ty), mask=(n < INTER)[:, None])

    @triton.jit
    def _down_kernel(
        inter_ptr, w_ptr, dense_ptr, slot_e_ptr, count_ptr, out_ptr, T, H, INTER,
        stride_we, stride_wh, stride_wi, SPLIT_N,
        E_PAD: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_H: tl.constexpr, BLOCK_I: tl.constexpr, EVEN: tl.constexpr,
        IEEE: tl.constexpr,
    ):  # fmt: skip
        h = tl.program_id(0) * BLOCK_H + tl.arange(0, BLOCK_H)
        share = tl.program_id(1)
        m = tl.arange(0, BLOCK_M)
        ii = tl.arange(0, BLOCK_I)
        n = tl.load(count_ptr)
        acc = tl.zeros([BLOCK_H, BLOCK_M], dtype=tl.float32)
        for s in range(share, n, SPLIT_N):
            e = tl.load(slot_e_ptr + s)
            weight = tl.load(dense_ptr + m * E_PAD + e)
            w_ptrs = w_ptr + e.to(tl.int64) * stride_we + h[:, None] * stride_wh + ii[None, :] * stride_wi
            a_ptrs = inter_ptr + s * (BLOCK_M * INTER) + m[None, :] * INTER + ii[:, None]
            if EVEN:
                wd = tl.load(w_ptrs)
                a = tl.load(a_ptrs)
            else:
                wd = tl.load(w_ptrs, mask=(h < H)[:, None] & (ii < INTER)[None, :], other=0.0)
                a = tl.load(a_ptrs, mask=(ii < INTER)[:, None], other=0.0)
            y = tl.dot(wd, a.to(wd.dtype), input_precision="ieee") if IEEE else tl.dot(wd, a.to(wd.dtype))
            y = y.to(inter_ptr.dtype.element_ty).to(tl.float32)  # the down grouped_mm's output, in the model's dtype
            acc += y * weight[None, :]
        tl.store(out_ptr + share * T * H + m[None, :] * H + h[:, None], acc, mask=(m < T)[None, :] & (h < H)[:, None])


def _reference(x, router_logits, gate_up, down, experts_per_token: int) -> torch.Tensor:
    """The same arithmetic in plain torch (the op on a CPU): (T, H) in float32, before the cast."""
    probs = torch.softmax(router_logits, dim=-1, dtype=torch.float32)
    ordered = torch.sort(probs, dim=-1, descending=True, stable=True)  # ties: the lowest index first, as CUDA's topk
    top, ids = ordered.values[:, :experts_per_token], ordered.indices[:, :experts_per_token]
    weights = (top / top.sum(dim=-1, keepdim=True)).to(x.dtype)
    rows = x.repeat_interleave(experts_per_token, dim=0).unsqueeze(-1)
    gate, up = torch.bmm(gate_up[ids.reshape(-1)], rows.to(gate_up.dtype)).squeeze(-1).chunk(2, dim=-1)
    act = (F.silu(gate.float()) * up.float()).to(x.dtype)
    y = torch.bmm(down[ids.reshape(-1)], act.unsqueeze(-1).to(down.dtype)).squeeze(-1).to(x.dtype)
    return (y.float() * weights.reshape(-1, 1).float()).view(x.shape[0], experts_per_token, -1).sum(dim=1)


@torch.library.custom_op("watercolour::moe_decode_experts", mutates_args=())
def moe_decode_experts(
    x: torch.Tensor, router_logits: torch.Tensor, gate_up: torch.Tensor, down: torch.Tensor, experts_per_token: int, split: int
) -> torch.Tensor:
    """The routed experts' output for router logits (T, E) and hidden states x (T, H), in `split` float32 partial
    sums (split, T, H): their sum, cast to x's dtype, is what transformers' experts return."""
    tokens, hidden = x.shape
    if not x.is_cuda or triton is None:
        out = x.new_zeros((split, tokens, hidden), dtype=torch.float32)
        out[0] = _reference(x, router_logits, gate_up, down, experts_per_token)
        return out
    return _triton_experts(x, router_logits, gate_up, down, experts_per_token, split)


def route(
    router_logits: torch.Tensor, experts_per_token: int, dtype: torch.dtype
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The route kernel alone (CUDA): the (T, E) table of routing weights (0: not routed), the distinct experts
    (-1 past their number) and their number."""
    tokens, experts = router_logits.shape
    block_m, e_pad, max_slots = max(16, _next_pow2(tokens)), _next_pow2(experts), min(tokens * experts_per_token, experts)
    weights = torch.empty((block_m, e_pad), device=router_logits.device, dtype=torch.float32)
    slot_e = torch.empty(max_slots, device=router_logits.device, dtype=torch.int32)
    count = torch.empty(1, device=router_logits.device, dtype=torch.int32)
    _route_kernel[(1,)](
        router_logits, weights, slot_e, count, tokens, experts, router_logits.stride(0), max_slots,
        K_TOP=experts_per_token, E_PAD=e_pad, BLOCK_M=block_m, SLOTS_PAD=_next_pow2(max_slots), ROUND_TO=_TL_DTYPES[dtype],
        num_warps=4,
    )  # fmt: skip
    return weights[:tokens, :experts], slot_e, count


def _triton_experts(x, router_logits, gate_up, down, experts_per_token: int, split: int) -> torch.Tensor:
    tokens, hidden = x.shape
    experts, double_inter, _ = gate_up.shape
    inter = double_inter // 2
    x = x.contiguous()
    router_logits = router_logits.contiguous()
    block_m = max(16, _next_pow2(tokens))
    e_pad = _next_pow2(experts)
    max_slots = min(tokens * experts_per_token, experts)
    weights = torch.empty((block_m, e_pad), device=x.device, dtype=torch.float32)  # (token, expert), 0: not routed
    slot_e = torch.empty(max_slots, device=x.device, dtype=torch.int32)  # the distinct experts, -1 past their number
    count = torch.empty(1, device=x.device, dtype=torch.int32)
    _route_kernel[(1,)](
        router_logits, weights, slot_e, count, tokens, experts, router_logits.stride(0), max_slots,
        K_TOP=experts_per_token, E_PAD=e_pad, BLOCK_M=block_m, SLOTS_PAD=_next_pow2(max_slots), ROUND_TO=_TL_DTYPES[x.dtype],
        num_warps=4,
    )  # fmt: skip
    act = torch.empty((max_slots, block_m, inter), device=x.device, dtype=x.dtype)
    cfg = CONFIG["gate_up"]
    block_n = min(cfg["BLOCK_N"], max(16, _next_pow2(inter)))
    block_k = min(cfg["BLOCK_K"], max(16, _next_pow2(hidden)))
    _gate_up_kernel[(max_slots, triton.cdiv(inter, block_n))](
        x, gate_up, weights, slot_e, act, tokens, hidden, inter,
        x.stride(0), gate_up.stride(0), gate_up.stride(1), gate_up.stride(2),
        E_PAD=e_pad, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k,
        EVEN_K=hidden % block_k == 0, EVEN_N=inter % block_n == 0, IEEE=x.dtype == torch.float32,
        num_warps=cfg["num_warps"], num_stages=cfg["num_stages"],
    )  # fmt: skip
    out = torch.empty((split, tokens, hidden), device=x.device, dtype=torch.float32)
    cfg = CONFIG["down"]
    block_h = min(cfg["BLOCK_H"], max(16, _next_pow2(hidden)))
    block_i = max(16, _next_pow2(inter))
    _down_kernel[(triton.cdiv(hidden, block_h), split)](
        act, down, weights, slot_e, count, out, tokens, hidden, inter,
        down.stride(0), down.stride(1), down.stride(2), split,
        E_PAD=e_pad, BLOCK_M=block_m, BLOCK_H=block_h, BLOCK_I=block_i,
        EVEN=(hidden % block_h == 0) and block_i == inter, IEEE=x.dtype == torch.float32,
        num_warps=cfg["num_warps"], num_stages=cfg["num_stages"],
    )  # fmt: skip
    return out


@moe_decode_experts.register_fake
def _(x, router_logits, gate_up, down, experts_per_token, split):
    return x.new_empty((split, x.shape[0], x.shape[1]), dtype=torch.float32)


def experts(block, x: torch.Tensor) -> torch.Tensor:
    """The routed experts of a sparse MoE block for hidden states x (T, H), through the op."""
    router_logits = F.linear(x, block.gate.weight)  # the router's own linear layer
    partial = torch.ops.watercolour.moe_decode_experts(
        x, router_logits, block.experts.gate_up_proj, block.experts.down_proj, block.gate.top_k, SPLIT
    )
    return partial.sum(dim=0).to(x.dtype)


def _fused_forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
    """Qwen3_5MoeSparseMoeBlock.forward with the routed experts through the op, while decoding; else the model's own."""
    batch, length, hidden = hidden_states.shape
    if not self._watercolour_fused_decode or batch * length > MAX_TOKENS or torch.is_grad_enabled():
        return type(self).forward(self, hidden_states)
    x = hidden_states.view(-1, hidden)
    shared = self.shared_expert(x)
    routed = experts(self, x)
    shared = F.sigmoid(self.shared_expert_gate(x)) * shared
    return (routed + shared).reshape(batch, length, hidden)


def _fusable(module) -> bool:
    """A sparse MoE block laid out as Qwen3.5-MoE's: a top-k softmax router, concatenated [gate; up] experts of
    shape (E, 2I, H) and (E, H, I) without biases, and a gated shared expert."""
    experts = getattr(module, "experts", None)
    gate = getattr(module, "gate", None)
    return (
        type(module).__name__.endswith("SparseMoeBlock")
        and hasattr(module, "shared_expert")
        and hasattr(module, "shared_expert_gate")
        and gate is not None
        and hasattr(gate, "top_k")
        and isinstance(getattr(gate, "weight", None), torch.Tensor)
        and experts is not None
        and getattr(experts, "has_gate", True)
        and not getattr(experts, "has_bias", False)
        and not getattr(experts, "is_transposed", False)
        and getattr(experts, "is_concatenated", True)
        and not getattr(experts, "has_post_expert_norm", False)
        and getattr(experts, "gate_up_proj", None) is not None
        and getattr(experts, "down_proj", None) is not None
        and experts.gate_up_proj.dim() == 3
        and getattr(experts.config, "hidden_act", "silu") == "silu"
    )


def install(model) -> list:
    """Give every fusable sparse MoE block the switchable forward (off until `active`); returns the blocks."""
    blocks = [module for module in model.modules() if _fusable(module)]
    for block in blocks:
        if not hasattr(block, "_watercolour_fused_decode"):
            block._watercolour_fused_decode = False
            block.forward = types.MethodType(_fused_forward, block)
    return blocks


@contextlib.contextmanager
def active(model):
    """Inside: the model's sparse MoE blocks run the fused experts on decode-shaped inputs."""
    blocks = install(model)
    for block in blocks:
        block._watercolour_fused_decode = True
    try:
        yield blocks
    finally:
        for block in blocks:
            block._watercolour_fused_decode = False


def _policy(trainer_or_model):
    model = trainer_or_model if isinstance(trainer_or_model, torch.nn.Module) else trainer_or_model.model
    return model.get_base_model() if hasattr(model, "get_base_model") else model


def fuse_decode(trainer_or_model) -> int:
    """Decode through the fused experts: wraps the model's decode-loop context (transformers'
    `_optimize_model_for_decode`, or what `compiled_generation.keep_grouped_experts` put there) so that the blocks
    switch on inside it. Returns the number of blocks; 0 (and nothing changed) where the model has none."""
    model = _policy(trainer_or_model)
    blocks = install(model)
    if not blocks or getattr(model, "_watercolour_decode_before", None) is not None:
        return len(blocks)
    before = model._optimize_model_for_decode

    @contextlib.contextmanager
    def fused_decode():
        with before(), active(model):
            yield

    model._watercolour_decode_before = before
    model._optimize_model_for_decode = fused_decode
    return len(blocks)


def unfuse_decode(trainer_or_model) -> None:
    """Undo `fuse_decode`: decoding runs the model's own experts again (the blocks keep their switch, off)."""
    model = _policy(trainer_or_model)
    before = getattr(model, "_watercolour_decode_before", None)
    if before is not None:
        model._optimize_model_for_decode = before
        model._watercolour_decode_before = None


def recipe_block(seed: int = 0, implementation: str = "grouped_mm", device: str = "cuda", **sizes):
    """One of Qwen3.5-35B-A3B's sparse MoE blocks at full size (256 experts, 8 active, hidden 2048, intermediate
    512; `sizes` for others), bf16, random weights of the scale the model's init gives (std 0.02, the router too)."""
    from transformers import Qwen3_5MoeTextConfig
    from transformers.models.qwen3_5_moe.modeling_qwen3_5_moe import Qwen3_5MoeSparseMoeBlock

    config = Qwen3_5MoeTextConfig(**sizes)
    config._experts_implementation = implementation
    generator = torch.Generator(device=device).manual_seed(seed)
    with torch.device(device):
        block = Qwen3_5MoeSparseMoeBlock(config).to(torch.bfloat16)
    with torch.no_grad():
        for parameter in block.parameters():
            parameter.copy_(torch.randn(parameter.shape, generator=generator, device=device) * 0.02)
    return block.eval()


def _graph_time_us(fn, replays: int = 50) -> float:
    """Median time of one call, captured in a CUDA graph (launch gaps out, as in the compiled decode step)."""
    import triton.testing

    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    return triton.testing.do_bench(graph.replay, warmup=25, rep=replays, return_mode="median") * 1e3


def bench(tokens: int = 8, layers: int = 4, sweep: bool = False) -> dict:
    """The fused experts against grouped_mm's, one block at a time over `layers` blocks (their weights, 1.5 GiB
    each, far past the L2), each call timed inside a CUDA graph."""
    blocks = [recipe_block(seed) for seed in range(layers)]
    x = torch.randn(tokens, 1, 2048, device="cuda", dtype=torch.bfloat16)
    flat = x.view(tokens, 2048)
    report: dict = {"tokens": tokens, "layers_cycled": layers, "device": torch.cuda.get_device_name()}
    with torch.no_grad():
        distinct = []
        for block in blocks:
            _, _, ids = block.gate(flat)
            distinct.append(int(ids.unique().numel()))
        report["distinct_experts_mean"] = sum(distinct) / len(distinct)
        moved = report["distinct_experts_mean"] * 3 * 512 * 2048 * 2 + 256 * 2048 * 2  # experts + router, bytes

        def each(fn):
            return lambda: [fn(block) for block in blocks]

        def grouped(block):
            return block(x)

        def fused(block):
            block._watercolour_fused_decode = True
            try:
                return _fused_forward(block, x)
            finally:
                block._watercolour_fused_decode = False

        def experts_grouped(block):
            _, weights, ids = block.gate(flat)
            return block.experts(flat, ids, weights)

        def experts_fused(block):
            return experts(block, flat)

        for block in blocks:
            install(block)
        rows = {"block_grouped_mm": each(grouped), "block_fused": each(fused),
                "experts_grouped_mm": each(experts_grouped), "experts_fused": each(experts_fused)}  # fmt: skip
        for name, fn in rows.items():
            us = _graph_time_us(fn) / layers
            report[f"{name}_us"] = round(us, 1)
        report["fused_experts_gb_per_s"] = round(moved / (report["experts_fused_us"] * 1e-6) / 1e9)
        report["speedup_block"] = round(report["block_grouped_mm_us"] / report["block_fused_us"], 2)
        if sweep:
            report["sweep_us_per_layer"] = _sweep(each(experts_fused), layers)
    return report


def _sweep(fn, layers: int) -> list[dict]:
    saved = {key: dict(value) for key, value in CONFIG.items()}, SPLIT
    rows = []
    gate_up = [dict(BLOCK_N=n, BLOCK_K=k, num_warps=w, num_stages=st) for n, k, w, st in
               [(32, 128, 4, 4), (16, 128, 4, 4), (64, 128, 4, 3), (32, 256, 4, 3), (32, 64, 4, 6), (16, 256, 4, 3),
                (64, 64, 4, 4), (32, 128, 8, 4)]]  # fmt: skip
    shapes = [(16, 4, 3), (16, 4, 2), (32, 4, 2), (16, 8, 3), (64, 4, 2)]
    down = [dict(BLOCK_H=h, num_warps=w, num_stages=st) for h, w, st in shapes]
    for g in gate_up:
        rows.append(_try(fn, g, down[0], 4, layers))
    best_g = min((r for r in rows if "us" in r), key=lambda r: r["us"])["gate_up"]
    for d in down:
        for split in (1, 2, 4, 8):
            rows.append(_try(fn, best_g, d, split, layers))
    best = min((r for r in rows if "us" in r), key=lambda r: r["us"])
    CONFIG["gate_up"], CONFIG["down"] = saved[0]["gate_up"], saved[0]["down"]
    configure(split=saved[1])
    return [{"best": best}, *rows]


def _try(fn, gate_up: dict, down: dict, split: int, layers: int) -> dict:
    configure(gate_up=gate_up, down=down, split=split)
    row = {"gate_up": dict(gate_up), "down": dict(down), "split": split}
    try:
        row["us"] = round(_graph_time_us(fn) / layers, 1)
    except Exception as error:  # noqa: BLE001 - a configuration that does not fit is a row, not a failure
        row["error"] = f"{type(error).__name__}: {str(error)[:120]}"
    return row


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, nargs="*", default=[8])
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--sweep", action="store_true")
    parser.add_argument("--out")
    args = parser.parse_args()
    report = {"config": {"gate_up": CONFIG["gate_up"], "down": CONFIG["down"], "split": SPLIT}}
    report["runs"] = [bench(tokens, args.layers, sweep=args.sweep and tokens == args.tokens[0]) for tokens in args.tokens]
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w") as file:
            file.write(text + "\n")


if __name__ == "__main__":
    main()

"""The fused MoE decode's Triton kernels (watercolour_trainer/moe_decode.py, issue 47) on a GPU, against transformers'
eager and grouped_mm experts at the recipe's shapes (256 experts, 8 active, hidden 2048, intermediate 512), and the
switch on a toy model there. Imports nothing of the project's beyond the module: it runs on a bare GPU machine
(pytest --noconftest)."""

from __future__ import annotations

import contextlib

import pytest
import torch

from watercolour_trainer import lora_merge, moe_decode

GPU = pytest.mark.skipif(not torch.cuda.is_available(), reason="the Triton kernels need a CUDA GPU")


def greedy(model, ids: torch.Tensor, tokens: int = 6):
    with torch.no_grad():
        out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=tokens, do_sample=False,
                             output_logits=True, return_dict_in_generate=True)  # fmt: skip
    return out.sequences, torch.stack(out.logits, dim=1)


def counted(monkeypatch) -> list[int]:
    calls: list[int] = []
    fused = moe_decode.experts

    def experts(block, x):
        calls.append(x.shape[0])
        return fused(block, x)

    monkeypatch.setattr(moe_decode, "experts", experts)
    return calls


def switch_gives_the_same_tokens_and_logits(model, ids, monkeypatch, atol: float, merged: bool = True) -> None:
    off_tokens, off_logits = greedy(model, ids)
    blocks = moe_decode.fuse_decode(model)
    assert blocks == model.config.get_text_config().num_hidden_layers
    calls = counted(monkeypatch)
    with lora_merge.merged_for_generation(model) if merged else contextlib.nullcontext():
        on_tokens, on_logits = greedy(model, ids)
    moe_decode.unfuse_decode(model)
    # decode steps only (one token per sequence), every layer; the prefill keeps the model's own experts
    assert calls and set(calls) == {ids.shape[0]} and len(calls) == blocks * (off_logits.shape[1] - 1)
    assert torch.equal(on_tokens, off_tokens)
    torch.testing.assert_close(on_logits, off_logits, rtol=1e-4, atol=atol)
    assert not any(block._watercolour_fused_decode for block in moe_decode.install(model))


def relative(a: torch.Tensor, b: torch.Tensor) -> float:
    return ((a.float() - b.float()).norm() / b.float().norm()).item()


def poison() -> None:
    """Leave NaN in the memory the caching allocator hands out next: an output element the kernels never write shows."""
    held = [torch.full((n,), float("nan"), device="cuda") for n in (2**12, 2**14, 2**16, 2**17, 2**18, 2**24) for _ in range(16)]
    del held


@GPU
@pytest.mark.parametrize("tokens", [1, 8, 16, 64])
def test_the_kernels_match_the_eager_experts_at_the_recipes_shapes(tokens):
    block = moe_decode.recipe_block(seed=tokens)
    reference32 = moe_decode.recipe_block(seed=tokens, implementation="eager").float()
    install = moe_decode.install(block)
    assert install == [block]
    for seed in range(3):
        x = torch.randn(tokens, 1, 2048, device="cuda", dtype=torch.bfloat16, generator=torch.Generator("cuda").manual_seed(seed))
        with torch.no_grad():
            exact = reference32(x.float())
            block.experts.config._experts_implementation = "grouped_mm"
            grouped = block(x)
            block.experts.config._experts_implementation = "eager"
            eager = block(x)
            poison()
            with moe_decode.active(block):
                fused = block(x)
        assert torch.isfinite(fused).all()
        # bf16's own rounding, no more: as close to the float32 block as transformers' bf16 paths are
        assert relative(fused, exact) < 1.5 * max(relative(grouped, exact), relative(eager, exact)) + 1e-4
        assert relative(fused, grouped) < 1e-2


@GPU
@pytest.mark.parametrize("ties", [False, True])
def test_the_route_kernel_picks_the_routers_experts_and_weights(ties):
    torch.manual_seed(0)
    router = moe_decode.recipe_block(seed=1).gate
    for tokens in (1, 8, 64):
        x = torch.randn(tokens, 2048, device="cuda", dtype=torch.bfloat16)
        logits = torch.nn.functional.linear(x, router.weight)
        if ties:  # a coarse grid: many equal logits, at the k-th place too
            logits = (logits * 4).round() / 4
        _, weights, ids = router(x) if not ties else _route_from_logits(logits, router.top_k)
        table, slot_e, count = moe_decode.route(logits, router.top_k, torch.bfloat16)
        expected = torch.zeros_like(table).scatter_(1, ids, weights.float())
        assert torch.equal(table != 0, expected != 0)  # the same experts, ties too
        torch.testing.assert_close(table, expected, rtol=2**-8, atol=0)  # the same weights, up to one bf16 rounding
        distinct = ids.unique().to(torch.int32)
        assert count.item() == distinct.numel()
        assert torch.equal(slot_e[: distinct.numel()], distinct)
        assert (slot_e[distinct.numel() :] == -1).all()


def _route_from_logits(logits: torch.Tensor, top_k: int):
    """Qwen3_5MoeTopKRouter.forward from its logits on."""
    probs = torch.softmax(logits, dtype=torch.float, dim=-1)
    top, ids = torch.topk(probs, top_k, dim=-1)
    top /= top.sum(dim=-1, keepdim=True)
    return logits, top.to(logits.dtype), ids


@GPU
def test_the_kernels_replay_in_a_cuda_graph_with_no_host_sync():
    block = moe_decode.recipe_block(seed=2)
    x = torch.randn(8, 2048, device="cuda", dtype=torch.bfloat16)
    with torch.no_grad():
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            moe_decode.experts(block, x)  # compiles the kernels outside the capture
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            captured = moe_decode.experts(block, x)
        for seed in range(3):
            x.copy_(
                torch.randn(8, 2048, device="cuda", dtype=torch.bfloat16, generator=torch.Generator("cuda").manual_seed(seed))
            )
            graph.replay()
            assert torch.equal(captured, moe_decode.experts(block, x))


@GPU
def test_the_fused_decode_on_a_gpu_gives_the_same_tokens_and_logits(monkeypatch):
    """The toy Qwen3.5-MoE of test_moe_decode.py (without its tokenizer: this file runs on a bare GPU machine), in
    float32 (the kernels' ieee dots): greedy tokens and logits with the switch off and on."""
    from transformers import Qwen3_5MoeConfig, Qwen3_5MoeForConditionalGeneration

    text = dict(
        vocab_size=1024, hidden_size=64, num_hidden_layers=8, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
        linear_key_head_dim=16, linear_value_head_dim=16, linear_num_key_heads=2, linear_num_value_heads=4,
        moe_intermediate_size=32, shared_expert_intermediate_size=32, num_experts=8, num_experts_per_tok=2,
    )  # fmt: skip
    vision = dict(depth=1, hidden_size=32, intermediate_size=64, num_heads=2, out_hidden_size=64)
    torch.manual_seed(0)
    with torch.device("cuda"):
        model = Qwen3_5MoeForConditionalGeneration(Qwen3_5MoeConfig(text_config=text, vision_config=vision)).eval()
    ids = torch.randint(8, 1024, (3, 12), device="cuda", generator=torch.Generator("cuda").manual_seed(1))
    switch_gives_the_same_tokens_and_logits(model, ids, monkeypatch, atol=1e-4, merged=False)

"""The fused MoE decode's switch (watercolour_trainer/moe_decode.py, issue 47) on the toy Qwen3.5-MoE, on any machine:
on a CPU the op runs its plain-torch arithmetic. Its Triton kernels: test_moe_decode_kernels.py (a GPU)."""

from __future__ import annotations

import torch

from tests.trainer.test_generation_speed import adapted, prompt
from tests.trainer.test_moe_decode_kernels import counted, switch_gives_the_same_tokens_and_logits
from watercolour_trainer import moe_decode
from watercolour_trainer.config import parse


def test_the_fused_decode_gives_the_same_tokens_and_logits_on_and_off(tiny_qwen35, monkeypatch):
    model = adapted(tiny_qwen35)
    switch_gives_the_same_tokens_and_logits(model, prompt(model), monkeypatch, atol=1e-4)


def test_the_fused_path_is_off_outside_decoding_and_with_autograd(tiny_qwen35, monkeypatch):
    model = adapted(tiny_qwen35)
    moe_decode.fuse_decode(model)
    calls = counted(monkeypatch)
    ids = prompt(model, length=1)
    with torch.no_grad():
        model(input_ids=ids)  # a forward outside generation's decode loop
    with moe_decode.active(model.get_base_model()):
        model(input_ids=ids).logits.sum().backward()  # training: autograd on
        assert not calls
        with torch.no_grad():
            model(input_ids=ids)
    assert calls == [ids.shape[0]] * model.config.get_text_config().num_hidden_layers
    moe_decode.unfuse_decode(model)


def test_the_op_computes_the_routed_experts_as_transformers_does():
    sizes = dict(
        hidden_size=128, moe_intermediate_size=64, shared_expert_intermediate_size=64, num_experts=16, num_experts_per_tok=4
    )
    block = moe_decode.recipe_block(seed=3, implementation="eager", device="cpu", **sizes).float()
    small = torch.Generator().manual_seed(0)
    x = torch.randn(5, 1, block.experts.hidden_dim, generator=small)
    with torch.no_grad():
        reference = block(x)
        moe_decode.install(block)
        with moe_decode.active(block):
            fused = block(x)
    torch.testing.assert_close(fused, reference, rtol=1e-5, atol=1e-5)


def test_the_switch_is_off_by_default_and_a_flag_turns_it_on():
    required = ["--env_url", "http://env", "--model_name_or_path", "m", "--use_cpu"]
    assert parse(required).fused_moe_decode is False
    assert parse([*required, "--fused_moe_decode"]).fused_moe_decode is True

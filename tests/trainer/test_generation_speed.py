"""Issue 26's generation speed paths keep the trainer's numbers, on Qwen3.5-MoE's real (toy-sized) architecture:
the LoRA merged for generation gives the wrapped model's logits and tokens and the exact weights back (so the
loss, the log-probs and the LoRA gradients after it are bit for bit those without it), and the experts' grouped_mm
kept while decoding computes what transformers' batched_mm switch computes."""

from __future__ import annotations

import copy
from types import SimpleNamespace

import pytest
import torch
from peft import get_peft_model

from watercolour_trainer import compiled_generation, lora_merge
from watercolour_trainer.config import parse
from watercolour_trainer.lora import lora_config
from watercolour_trainer.model_loading import load_policy


def adapted(folder, bf16: bool = False):
    """All-linear LoRA as the recipe has it, with B no longer zero (a trained adapter: the merge changes weights)."""
    torch.manual_seed(0)
    model = get_peft_model(load_policy(str(folder), bf16=bf16), lora_config("all-linear", r=16, alpha=32))
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if "lora_B" in name:
                parameter.copy_(torch.randn(parameter.shape, generator=generator) * 0.05)
    return model.eval()


def prompt(model, length: int = 12) -> torch.Tensor:
    vocab = model.config.get_text_config().vocab_size
    return torch.randint(8, vocab, (2, length), generator=torch.Generator().manual_seed(1))


def weights(model) -> dict[str, torch.Tensor]:
    return {name: parameter.detach().clone() for name, parameter in model.named_parameters()}


def greedy(model, ids: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        return model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=6, do_sample=False)


def loss_and_lora_grads(model, ids: torch.Tensor) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    model.zero_grad(set_to_none=True)
    logits = model(input_ids=ids).logits[:, :-1].float()
    loss = -torch.log_softmax(logits, dim=-1).gather(-1, ids[:, 1:, None]).mean()
    loss.backward()
    grads = {name: p.grad.clone() for name, p in model.named_parameters() if p.requires_grad and p.grad is not None}
    model.zero_grad(set_to_none=True)
    return loss.detach(), grads


def test_merged_generation_gives_the_wrapped_logits_and_tokens_then_the_exact_weights_back(tiny_qwen35):
    model = adapted(tiny_qwen35)
    ids = prompt(model)
    before = weights(model)
    with torch.no_grad():
        wrapped_logits = model(input_ids=ids).logits
    wrapped_tokens = greedy(model, ids)

    with lora_merge.merged_for_generation(model):
        assert all(layer.merged for layer in lora_merge.lora_layers(model))
        with torch.no_grad():
            merged_logits = model(input_ids=ids).logits
        merged_tokens = greedy(model, ids)

    torch.testing.assert_close(merged_logits, wrapped_logits, rtol=1e-4, atol=1e-4)
    assert torch.equal(merged_tokens, wrapped_tokens)
    assert not any(layer.merged for layer in lora_merge.lora_layers(model))
    after = weights(model)
    assert all(torch.equal(after[name], before[name]) for name in before)
    with torch.no_grad():
        assert torch.equal(model(input_ids=ids).logits, wrapped_logits)


def test_in_bf16_the_weights_come_back_exactly_where_an_unmerge_would_not(tiny_qwen35):
    model = adapted(tiny_qwen35, bf16=True)
    reference = copy.deepcopy(model).float()  # the very same weights, in float32
    ids = prompt(model)
    before = weights(model)
    with torch.no_grad():
        exact = reference(input_ids=ids).logits
        wrapped_logits = model(input_ids=ids).logits.float()
        with lora_merge.merged_for_generation(model):
            merged_logits = model(input_ids=ids).logits.float()

    def error(logits):
        return ((logits - exact).norm() / exact.norm()).item()

    # Merged, the bf16 model is as far from the float32 one as the wrapped bf16 model is: bf16's own rounding.
    assert error(wrapped_logits) < 5e-2 and error(merged_logits) < 2 * error(wrapped_logits)
    after = weights(model)
    assert all(torch.equal(after[name], before[name]) for name in before)

    # Why the weights are copied back rather than unmerged: W + BA - BA is not W in bf16.
    layer = lora_merge.lora_layers(model)[0]
    original = layer.get_base_layer().weight.detach().clone()
    layer.merge()
    layer.unmerge()
    assert not torch.equal(layer.get_base_layer().weight, original)


def test_loss_log_probs_and_lora_update_after_merged_generation_are_those_without_it(tiny_qwen35):
    model = adapted(tiny_qwen35)
    ids = prompt(model, length=16)
    model.train()
    loss, grads = loss_and_lora_grads(model, ids)
    model.eval()
    with lora_merge.merged_for_generation(model):
        greedy(model, ids)
    model.train()
    loss_after, grads_after = loss_and_lora_grads(model, ids)
    assert torch.equal(loss_after, loss)
    assert grads.keys() == grads_after.keys() and grads
    assert all(torch.equal(grads_after[name], grads[name]) for name in grads)

    # One optimiser step from each: the same LoRA update.
    def step(g):
        trained = {n: p.detach().clone() for n, p in model.named_parameters() if n in g}
        optimizer = torch.optim.AdamW(list(trained.values()), lr=1e-3)
        for name, value in trained.items():
            value.grad = g[name]
        optimizer.step()
        return trained

    first, second = step(grads), step(grads_after)
    assert all(torch.equal(first[name], second[name]) for name in first)


def test_the_trainer_generates_merged_and_trains_unmerged(tiny_qwen35):
    model = adapted(tiny_qwen35)
    before = weights(model)
    seen = []

    def generate_single_turn(*args, **kwargs):
        seen.append(all(layer.merged for layer in lora_merge.lora_layers(model)))
        return "completions"

    trainer = SimpleNamespace(model=model, _generate_single_turn=generate_single_turn)
    lora_merge.merge_lora_for_generation(trainer)
    assert trainer._generate_single_turn([1, 2], None, {}, 4) == "completions"
    assert seen == [True]
    assert not any(layer.merged for layer in lora_merge.lora_layers(model))
    after = weights(model)
    assert all(torch.equal(after[name], before[name]) for name in before)


def test_a_failed_generation_still_gives_the_weights_back(tiny_qwen35):
    model = adapted(tiny_qwen35)
    before = weights(model)
    with pytest.raises(RuntimeError), lora_merge.merged_for_generation(model):
        raise RuntimeError("generation failed")
    after = weights(model)
    assert all(torch.equal(after[name], before[name]) for name in before)
    assert not any(layer.merged for layer in lora_merge.lora_layers(model))


def experts_while_decoding(model) -> set[str]:
    with model._optimize_model_for_decode():
        return set(model.get_experts_implementation().values())


def test_grouped_experts_are_kept_while_decoding_and_compute_what_batched_mm_does(tiny_qwen35, monkeypatch):
    model = adapted(tiny_qwen35)
    base = model.get_base_model()
    # transformers switches to batched_mm only off the CPU: make the model look like it is on a GPU.
    monkeypatch.setattr(type(base), "device", property(lambda self: torch.device("cuda")))
    assert experts_while_decoding(base) == {"batched_mm"}
    compiled_generation.keep_grouped_experts(SimpleNamespace(model=model))
    assert experts_while_decoding(base) == {"grouped_mm"}
    monkeypatch.undo()

    ids = prompt(model)
    with torch.no_grad():
        grouped = model(input_ids=ids).logits
        base.set_experts_implementation("batched_mm")
        batched = model(input_ids=ids).logits
        base.set_experts_implementation("grouped_mm")
    torch.testing.assert_close(grouped, batched, rtol=1e-4, atol=1e-4)


def test_the_speed_switches_default_on_and_turn_off():
    required = ["--env_url", "http://env", "--model_name_or_path", "m", "--use_cpu"]
    config = parse(required)
    assert config.merged_lora_generation is True and config.decode_experts == "grouped_mm"
    config = parse([*required, "--no_merged_lora_generation", "--decode_experts", "batched_mm"])
    assert config.merged_lora_generation is False and config.decode_experts == "batched_mm"

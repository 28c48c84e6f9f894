"""LoRA coverage on Qwen3.5-MoE's real (toy-sized) architecture: a q/k/v/o hand list trains only the
full-attention layers, a quarter of them; all-linear trains every decoder layer; the script refuses the former."""

from __future__ import annotations

import pytest
import torch
from peft import get_peft_model
from transformers import AutoConfig, Qwen3_5MoeForCausalLM

from tests.trainer.conftest import SHORT_RUN, run_trainer
from watercolour_trainer.lora import coverage, decoder_layer_count, lora_config
from watercolour_trainer.model_loading import attach_adapter, load_policy, model_class


def wrapped_coverage(folder, targets: str | list[str]):
    model = load_policy(str(folder), bf16=True)
    wrapped = get_peft_model(model, lora_config(targets, r=4, alpha=8))
    return coverage(wrapped, decoder_layer_count(model.config))


def test_the_checkpoint_loads_with_its_multimodal_class_in_bf16(tiny_qwen35):
    model = load_policy(str(tiny_qwen35), bf16=True)
    assert model_class(AutoConfig.from_pretrained(tiny_qwen35)).__name__ == "Qwen3_5MoeForConditionalGeneration"
    assert {p.dtype for p in model.parameters()} == {torch.bfloat16}


def test_all_linear_covers_every_decoder_layer_and_both_layer_kinds(tiny_qwen35):
    covered = wrapped_coverage(tiny_qwen35, "all-linear")
    assert covered.complete and covered.trained_layers == list(range(8))
    assert {"q_proj", "o_proj", "in_proj_qkv", "in_proj_z", "out_proj"} <= set(covered.module_kinds)
    assert not any("visual" in kind for kind in covered.module_kinds)


def test_the_attention_hand_list_covers_a_quarter(tiny_qwen35):
    covered = wrapped_coverage(tiny_qwen35, ["q_proj", "k_proj", "v_proj", "o_proj"])
    assert covered.trained_layers == [3, 7] and not covered.complete
    assert covered.describe().startswith("LoRA trains 2 of 8 decoder layers")


def test_the_script_refuses_a_partial_cover_and_says_so(tiny_qwen35, server_url, tmp_path):
    finished = run_trainer(
        "--env_url", server_url, "--model_name_or_path", str(tiny_qwen35), "--use_peft",
        "--lora_target_modules", "q_proj", "k_proj", "v_proj", "o_proj", "--mix", "hps-only", "--allow_missing_terms",
        "--report_to", "none", "--max_steps", "1", *SHORT_RUN, "--output_dir", str(tmp_path / "run"),
    )  # fmt: skip
    assert finished.returncode != 0
    assert "LoRA trains 2 of 8 decoder layers" in finished.stderr and "--allow_partial_lora" in finished.stderr
    assert not (tmp_path / "run" / "film").exists()  # refused before any rollout


def test_an_adapter_loads_back_only_onto_the_class_it_was_trained_with(tiny_qwen35, tmp_path):
    trained = get_peft_model(load_policy(str(tiny_qwen35), bf16=False), lora_config("all-linear", r=4, alpha=8))
    for name, parameter in trained.named_parameters():
        if "lora_B" in name:
            torch.nn.init.normal_(parameter)  # as after training: B is no longer zero
    trained.save_pretrained(tmp_path / "adapter")

    loaded = attach_adapter(load_policy(str(tiny_qwen35), bf16=False), str(tmp_path / "adapter"))
    assert type(loaded.base_model.model).__name__ == "Qwen3_5MoeForConditionalGeneration"
    # The causal-LM class names the decoder differently: PEFT would only warn and train from zero.
    with pytest.raises(ValueError, match="found no module in Qwen3_5MoeForCausalLM"):
        attach_adapter(Qwen3_5MoeForCausalLM.from_pretrained(tiny_qwen35), str(tmp_path / "adapter"))

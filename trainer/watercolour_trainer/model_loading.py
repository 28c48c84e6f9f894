"""Loading the policy: always in an explicit dtype, always with the class its checkpoint was made for.

Qwen3.5 checkpoints are natively multimodal (`Qwen3_5MoeForConditionalGeneration`). Training and
loading an adapter through the causal-LM class instead renames the decoder's modules, and PEFT
then silently drops most adapter tensors, so both go through the class the config names.
"""

from __future__ import annotations

import logging
from pathlib import Path

import torch
import transformers
from huggingface_hub import hf_hub_download
from peft import PeftModel
from safetensors import safe_open
from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer, PretrainedConfig, PreTrainedModel

log = logging.getLogger(__name__)


def policy_dtype(bf16: bool) -> torch.dtype:
    if not bf16:
        log.warning("loading the policy in float32 (pass --bf16 on a GPU: it halves memory)")
    return torch.bfloat16 if bf16 else torch.float32


def model_class(config: PretrainedConfig) -> type[PreTrainedModel]:
    """The architecture the checkpoint declares, else the causal-LM auto class."""
    for name in config.architectures or []:
        cls = getattr(transformers, name, None)
        if cls is not None:
            return cls
    return AutoModelForCausalLM


def load_policy(name: str, bf16: bool) -> PreTrainedModel:
    config = AutoConfig.from_pretrained(name)
    cls = model_class(config)
    log.info("loading %s as %s", name, cls.__name__)
    return cls.from_pretrained(name, dtype=policy_dtype(bf16))


def load_tokenizer(name: str):
    tokenizer = AutoTokenizer.from_pretrained(name)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


def load_with_adapter(base: str, adapter: str, bf16: bool) -> PeftModel:
    """Base plus a trained adapter; refuses an adapter whose tensors did not all find their modules."""
    model = PeftModel.from_pretrained(load_policy(base, bf16), adapter)
    loaded = sum(1 for name, _ in model.named_parameters() if "lora_" in name)
    expected = _adapter_tensor_count(adapter)
    if loaded < expected:
        raise ValueError(f"only {loaded} of the adapter's {expected} LoRA tensors found a module in {base}: wrong model class?")
    return model


def _adapter_tensor_count(adapter: str) -> int:
    local = Path(adapter) / "adapter_model.safetensors"
    path = str(local) if local.exists() else hf_hub_download(adapter, "adapter_model.safetensors")
    with safe_open(path, "pt") as tensors:
        return len(list(tensors.keys()))

"""Loading the policy: always in an explicit dtype, always with the class its checkpoint was made for.

Qwen3.5 checkpoints are natively multimodal (`Qwen3_5MoeForConditionalGeneration`). Training and
loading an adapter through the causal-LM class instead renames the decoder's modules, and PEFT
then silently drops most adapter tensors, so both go through the class the config names.
"""

from __future__ import annotations

import logging
import re
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
    return attach_adapter(load_policy(base, bf16), adapter)


def attach_adapter(model: PreTrainedModel, adapter: str) -> PeftModel:
    """The adapter on `model`, refused unless every saved tensor landed on a module with its values.

    PEFT only warns when names do not match, and then creates fresh LoRA modules: counting LoRA
    parameters cannot tell a loaded adapter from an empty one, so the check compares names and values.
    """
    wrapped = PeftModel.from_pretrained(model, adapter)
    parameters = dict(wrapped.named_parameters())
    missing = []
    with safe_open(_adapter_file(adapter), "pt") as saved:
        for key in saved.keys():  # noqa: SIM118 - safe_open handles are not iterable
            loaded = parameters.get(_LORA_TENSOR.sub(r".\1.default.", key))
            if loaded is None or not torch.equal(loaded.detach().cpu(), saved.get_tensor(key).to(loaded.dtype)):
                missing.append(key)
    if missing:
        raise ValueError(
            f"{len(missing)} of the adapter's LoRA tensors found no module in {type(model).__name__} "
            f"(first: {missing[0]}): load the base with the class it was trained with"
        )
    return wrapped


_LORA_TENSOR = re.compile(r"\.(lora_[AB]|lora_embedding_[AB])\.")


def _adapter_file(adapter: str) -> str:
    local = Path(adapter) / "adapter_model.safetensors"
    return str(local) if local.exists() else hf_hub_download(adapter, "adapter_model.safetensors")

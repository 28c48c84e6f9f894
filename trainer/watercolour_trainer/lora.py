"""LoRA targets and proof of coverage.

A hand list of q/k/v/o targets trains only Qwen3.5's 10 full-attention layers of 40: the
30 Gated-DeltaNet layers name their projections differently. After wrapping, count which
decoder layers and which module kinds carry trainable parameters, and refuse a partial cover.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from peft import LoraConfig

_DECODER_LAYER = re.compile(r"\.layers\.(\d+)\.(?:.*\.)?([A-Za-z_0-9]+)\.lora_[AB]\.")
_VISION = re.compile(r"visual|vision")


def lora_config(targets: str | list[str], r: int, alpha: int) -> LoraConfig:
    """`targets`: PEFT's target_modules, the string `all-linear` or module names."""
    # The policy only reads text: adapters on the vision tower would never get a gradient.
    return LoraConfig(
        r=r, lora_alpha=alpha, target_modules=targets, exclude_modules=r".*(visual|vision).*", task_type="CAUSAL_LM"
    )


@dataclass
class Coverage:
    layers: int
    trained_layers: list[int]
    module_kinds: Counter = field(default_factory=Counter)

    @property
    def complete(self) -> bool:
        return len(self.trained_layers) == self.layers

    def describe(self) -> str:
        kinds = ", ".join(f"{kind} x{count}" for kind, count in sorted(self.module_kinds.items()))
        return f"LoRA trains {len(self.trained_layers)} of {self.layers} decoder layers ({kinds or 'no modules'})"


def coverage(model, decoder_layers: int) -> Coverage:
    """Which decoder layers, and which kinds of module, carry trainable LoRA weights (vision excluded)."""
    layers, kinds = set(), Counter()
    for name, parameter in model.named_parameters():
        match = _DECODER_LAYER.search(name)
        if not parameter.requires_grad or not match or _VISION.search(name):
            continue
        layers.add(int(match.group(1)))
        if ".lora_A." in name:
            kinds[match.group(2)] += 1
    return Coverage(layers=decoder_layers, trained_layers=sorted(layers), module_kinds=kinds)


def decoder_layer_count(config) -> int:
    text = getattr(config, "text_config", None) or config
    return text.num_hidden_layers


class PartialLoraError(ValueError):
    """Some decoder layers would not train; --allow_partial_lora overrides."""

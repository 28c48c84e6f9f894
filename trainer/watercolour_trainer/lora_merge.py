"""Generation with the LoRA merged into the weights, and the weights given back bit for bit before training.

A wrapped LoRA layer runs its base matmul and two thin ones (x A, then B) on every decode step; on the 35B-A3B
model that is a third of a compiled decode step (issue 26: 21 ms a step without the wrappers, 31 ms with them,
batch 8). Merged, each wrapped layer runs its base layer alone (PEFT's forward skips the adapter when merged).

Merging in bf16 and unmerging again would not give the base weights back: W + BA - BA rounds differently from
W, and the error would pile up step after step. So the base weights of the wrapped layers are copied first and
copied back after generation (in place: the compiled decode step's CUDA graphs keep pointing at the same
memory), and training sees exactly the weights it would have seen without the merge. The copy costs the
wrapped layers' base weights once more in memory (bench/grpo_profile.py reports its size).
"""

from __future__ import annotations

import functools
from contextlib import contextmanager

import torch
from peft.tuners.lora import LoraLayer


def lora_layers(model) -> list[LoraLayer]:
    return [module for module in model.modules() if isinstance(module, LoraLayer)]


@contextmanager
def merged_for_generation(model):
    """Inside: every LoRA layer merged into its base weight. After: the base weights exactly as before, unmerged."""
    layers = [layer for layer in lora_layers(model) if not layer.merged and not layer.disable_adapters]
    with torch.no_grad():
        saved = [layer.get_base_layer().weight.detach().clone() for layer in layers]
        try:
            for layer in layers:
                layer.merge()
            yield model
        finally:
            for layer, weight in zip(layers, saved, strict=True):
                layer.get_base_layer().weight.copy_(weight)
                layer.merged_adapters.clear()


def merge_lora_for_generation(trainer) -> None:
    """Wrap the trainer's generation (TRL 1.16's `_generate_single_turn`, the plain `generate` route) in
    `merged_for_generation`. Training, the log-probs and the LoRA update then run on the unmerged model."""
    generate_single_turn = trainer._generate_single_turn

    @functools.wraps(generate_single_turn)
    def merged(*args, **kwargs):
        with merged_for_generation(trainer.model):
            return generate_single_turn(*args, **kwargs)

    trainer._generate_single_turn = merged

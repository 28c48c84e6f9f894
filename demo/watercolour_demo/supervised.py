"""Supervised training of the warm start: next-token loss on the replies only, the prompt as context."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

IGNORED = -100  # the label cross-entropy skips: prompt and padding


Example = tuple[list[int], list[int]]  # a prompt's tokens and its reply's


def batch_tensors(examples: list[Example], pad_id: int) -> dict[str, torch.Tensor]:
    width = max(len(prompt) + len(reply) for prompt, reply in examples)
    ids = torch.full((len(examples), width), pad_id)
    labels = torch.full((len(examples), width), IGNORED)
    mask = torch.zeros((len(examples), width), dtype=torch.long)
    for row, (prompt, reply) in enumerate(examples):
        sequence = torch.tensor(prompt + reply)
        ids[row, : len(sequence)] = sequence
        labels[row, len(prompt) : len(sequence)] = sequence[len(prompt) :]
        mask[row, : len(sequence)] = 1
    return {"input_ids": ids, "labels": labels, "attention_mask": mask}


def learning_rate(step: int, steps: int, peak: float) -> float:
    """A tenth of the steps warming up, then a cosine down to a tenth of the peak."""
    warmup = max(1, steps // 10)
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = (step - warmup) / max(1, steps - warmup)
    return peak * (0.1 + 0.45 * (1 + math.cos(math.pi * progress)))


def train(
    model,
    examples: list[Example],
    pad_id: int,
    batch_size: int,
    peak_lr: float,
    on_step: Callable[[int, int, float], None] | None = None,
) -> list[float]:
    """One pass over `examples` in batches; returns the loss of every step."""
    steps = len(examples) // batch_size
    optimiser = torch.optim.AdamW(model.parameters(), lr=peak_lr, betas=(0.9, 0.95), weight_decay=0.01)
    model.train()
    losses = []
    for step in range(steps):
        for group in optimiser.param_groups:
            group["lr"] = learning_rate(step, steps, peak_lr)
        batch = batch_tensors(examples[step * batch_size : (step + 1) * batch_size], pad_id)
        batch = {name: tensor.to(model.device) for name, tensor in batch.items()}
        loss = model(**batch).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
        optimiser.zero_grad(set_to_none=True)
        losses.append(loss.item())
        if on_step:
            on_step(step + 1, steps, losses[-1])
    model.eval()
    return losses

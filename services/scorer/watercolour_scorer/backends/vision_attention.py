"""Linear-time vision attention for Qwen2-VL under transformers 4.45.2.

That release's SDPA vision attention concatenates every image of a batch into
one sequence and attends over all of it under a block-diagonal mask, so time
and memory grow with the square of the batch (HPSv3 on an H200: 32 paintings
took 11 s a pass and 128 GiB). Attending image by image computes exactly the
same thing; images of one size (all our renders) go through one batched call.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from transformers.models.qwen2_vl import modeling_qwen2_vl


def attend_per_image(self, hidden_states: torch.Tensor, cu_seqlens: torch.Tensor, rotary_pos_emb=None) -> torch.Tensor:
    seq_length = hidden_states.shape[0]
    q, k, v = self.qkv(hidden_states).reshape(seq_length, 3, self.num_heads, -1).permute(1, 0, 2, 3).unbind(0)
    q = modeling_qwen2_vl.apply_rotary_pos_emb_vision(q.unsqueeze(0), rotary_pos_emb).squeeze(0)
    k = modeling_qwen2_vl.apply_rotary_pos_emb_vision(k.unsqueeze(0), rotary_pos_emb).squeeze(0)
    lengths = (cu_seqlens[1:] - cu_seqlens[:-1]).tolist()
    if len(set(lengths)) == 1:  # equal images: one call, a batch dimension instead of a mask
        batched = [t.reshape(len(lengths), lengths[0], self.num_heads, -1).transpose(1, 2) for t in (q, k, v)]
        output = F.scaled_dot_product_attention(*batched).transpose(1, 2)
    else:
        parts = zip(*(t.split(lengths) for t in (q, k, v)), strict=True)
        output = torch.cat([F.scaled_dot_product_attention(*(t.transpose(0, 1) for t in part)).transpose(0, 1) for part in parts])
    return self.proj(output.reshape(seq_length, -1))


def install() -> None:
    """Replace the SDPA vision attention's forward; flash-attention 2, where installed, is left alone."""
    modeling_qwen2_vl.VisionSdpaAttention.forward = attend_per_image

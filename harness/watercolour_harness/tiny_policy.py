"""A policy small enough to train on a laptop CPU, built here from nothing: a byte-level BPE tokenizer
trained on a sketch corpus, with a chat template, and a randomly initialised Qwen3-style decoder.

Nothing is downloaded. The same builders give the tests their tiny models.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

if TYPE_CHECKING:  # transformers takes 300 MB to import: the demo's own process reads SIZES without it
    from transformers import PreTrainedTokenizerFast, Qwen3ForCausalLM

SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]

# ChatML, as Qwen's templates write it; `enable_thinking` is accepted and there is never a thinking block.
CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


@dataclass(frozen=True)
class PolicySize:
    hidden: int = 128
    layers: int = 4
    heads: int = 4
    kv_heads: int = 2
    intermediate: int = 384
    context: int = 4096


SIZES = {
    "tiny": PolicySize(hidden=64, layers=2, heads=2, kv_heads=1, intermediate=128),
    "small": PolicySize(),
    "base": PolicySize(hidden=192, layers=4, heads=4, kv_heads=2, intermediate=512),
    "large": PolicySize(hidden=384, layers=6, heads=6, kv_heads=2, intermediate=1024),
}


def build_tokenizer(texts: list[str], vocab_size: int = 1024, whole_lines: bool = False) -> PreTrainedTokenizerFast:
    """`whole_lines`: tokens may span anything within a line (a whole `brush.endShape(CLOSE);`), which
    makes generated sketches about five times shorter in tokens than word pieces do, but never a quoted
    string's edge: a colour is a token of its own, never one that runs on into the number after it, which
    a small policy completes with that number again (`brush.fill('#e0a526', 6', 70 * glaze)`)."""
    core = Tokenizer(models.BPE())
    if whole_lines:
        lines = pre_tokenizers.Split(Regex(r"[^\n]*\n?"), behavior="isolated")
        quoted = pre_tokenizers.Split(Regex(r"'[^'\n]*'"), behavior="isolated")
        byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
        core.pre_tokenizer = pre_tokenizers.Sequence([lines, quoted, byte_level])
    else:
        core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    core.train_from_iterator(texts, trainer=trainer)
    from transformers import PreTrainedTokenizerFast

    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core, eos_token="<|im_end|>", pad_token="<|endoftext|>", bos_token=None, unk_token=None
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def build_policy(tokenizer: PreTrainedTokenizerFast, size: PolicySize, seed: int = 0, tied: bool = True) -> Qwen3ForCausalLM:
    """`tied`: the output layer is the input embedding, as in Qwen3's small checkpoints."""
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM

    torch.manual_seed(seed)
    config = Qwen3Config(
        vocab_size=len(tokenizer),
        hidden_size=size.hidden,
        num_hidden_layers=size.layers,
        num_attention_heads=size.heads,
        num_key_value_heads=size.kv_heads,
        head_dim=size.hidden // size.heads,
        intermediate_size=size.intermediate,
        max_position_embeddings=size.context,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=tied,
    )
    return Qwen3ForCausalLM(config)


def save_policy(model, tokenizer, folder: Path) -> Path:
    """A folder that `--model` (and transformers' from_pretrained) loads like any Hub checkpoint."""
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def learn_turns(model, encode, messages: list[dict], eos_token_id: int, steps: int = 120, lr: float = 3e-3) -> float:
    """Train a tiny policy, supervised, on a conversation's assistant turns, each up to its end-of-turn token (the rest
    is context): how a test's random policy learns to call a tool. `encode(messages, **options)` gives the model's
    inputs for the messages as its chat template renders them (`add_generation_prompt=True` among the options).
    Returns the last step's loss."""
    import torch

    whole = encode(messages)
    ids = whole["input_ids"][0]
    targets = []
    for turn, message in enumerate(messages):
        if message["role"] == "assistant":
            start = encode(messages[:turn], add_generation_prompt=True)["input_ids"].shape[1]
            end = start + int((ids[start:] == eos_token_id).nonzero()[0]) + 1
            targets += range(start, end)
    targets = torch.tensor(targets)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr)
    for _ in range(steps):
        logits = model(**whole, logits_to_keep=targets - 1).logits[0]  # only the targets' logits: the vocabulary is wide
        loss = torch.nn.functional.cross_entropy(logits, ids[targets])
        loss.backward()
        optimiser.step()
        optimiser.zero_grad()
    return loss.item()

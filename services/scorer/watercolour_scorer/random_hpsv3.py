"""Builds an HPSv3 model of the real architecture with random weights, entirely
offline, so the real loading and inference path can run where no weights can be
downloaded: a Qwen2-VL base (tiny for tests, or the full 7B shape for GPU
measurements), a byte-level BPE tokenizer trained here, a processor, and an HPSv3
checkpoint made by hpsv3's own model factory.

    python -m watercolour_scorer.random_hpsv3 OUT_DIR [--size tiny|7b] [--device cpu|cuda]

writes OUT_DIR/base/, OUT_DIR/hpsv3.yaml and OUT_DIR/hpsv3.safetensors; point
WATERCOLOUR_SCORER_HPSV3_CONFIG and _CHECKPOINT at the last two.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import yaml

SPECIAL_TOKENS = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|vision_pad|>",
    "<|image_pad|>",
    "<|video_pad|>",
]

# Qwen2-VL's chat format, enough for one user turn with images and text.
CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
    "{% for part in message['content'] %}{% if part['type'] == 'image' %}<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif part['type'] == 'text' %}{{ part['text'] }}{% endif %}{% endfor %}{% endif %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

SIZES = {
    "tiny": {
        "text": dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2),
        "vision": dict(depth=2, embed_dim=32, num_heads=2, mlp_ratio=2),
        "mrope_section": [2, 3, 3],
        "vocab_size": None,  # the tokenizer's own size
    },
    # Qwen/Qwen2-VL-7B-Instruct, the base HPSv3 fine-tunes.
    "7b": {
        "text": dict(
            hidden_size=3584, intermediate_size=18944, num_hidden_layers=28, num_attention_heads=28, num_key_value_heads=4
        ),
        "vision": dict(depth=32, embed_dim=1280, num_heads=16, mlp_ratio=4),
        "mrope_section": [16, 24, 24],
        "vocab_size": 152064,
    },
}


def build_tokenizer():
    from hpsv3.dataset.data_collator_qwen import INSTRUCTION
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import Qwen2TokenizerFast

    corpus = [INSTRUCTION, "a loose watercolour flower, a peach hibiscus, soft washes and bleeding edges"] * 4
    bpe = Tokenizer(models.BPE(unk_token=None))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=400, special_tokens=SPECIAL_TOKENS, show_progress=False))
    return Qwen2TokenizerFast(
        tokenizer_object=bpe,
        unk_token=None,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=SPECIAL_TOKENS[1:],
    )


def write_base(out: Path, size: str, device: str) -> Path:
    import torch
    from transformers import Qwen2VLConfig, Qwen2VLForConditionalGeneration, Qwen2VLImageProcessor, Qwen2VLProcessor

    spec = SIZES[size]
    tokenizer = build_tokenizer()
    ids = {token: tokenizer.convert_tokens_to_ids(token) for token in SPECIAL_TOKENS}
    config = Qwen2VLConfig(
        vocab_size=spec["vocab_size"] or len(tokenizer),
        rope_scaling={"type": "mrope", "mrope_section": spec["mrope_section"]},
        vision_config={**spec["vision"], "hidden_size": spec["text"]["hidden_size"]},
        image_token_id=ids["<|image_pad|>"],
        video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"],
        vision_end_token_id=ids["<|vision_end|>"],
        bos_token_id=ids["<|endoftext|>"],
        eos_token_id=ids["<|im_end|>"],
        pad_token_id=ids["<|endoftext|>"],
        torch_dtype="bfloat16",
        **spec["text"],
    )
    base = out / "base"
    with torch.device(device):
        model = Qwen2VLForConditionalGeneration(config).to(torch.bfloat16)
    model.save_pretrained(base, safe_serialization=True)
    processor = Qwen2VLProcessor(image_processor=Qwen2VLImageProcessor(), tokenizer=tokenizer, chat_template=CHAT_TEMPLATE)
    processor.save_pretrained(base)
    return base


def write_checkpoint(out: Path, base: Path, bf16: bool) -> tuple[Path, Path]:
    """An HPSv3 config pointing at `base`, and a checkpoint of the model hpsv3 builds from it.

    hpsv3 casts its reward head under a CUDA-only autocast, so on a CPU the whole
    model must run in float32 (`bf16=False`); on a GPU it runs in bf16 as published.
    """
    import safetensors.torch
    from hpsv3.inference import _MODEL_CONFIG_PATH
    from hpsv3.train import create_model_and_processor
    from hpsv3.utils.parser import DataConfig, ModelConfig, PEFTLoraConfig, TrainingConfig, parse_args_with_yaml

    config = yaml.safe_load((_MODEL_CONFIG_PATH / "HPSv3_7B.yaml").read_text())
    config.update(model_name_or_path=str(base), disable_flash_attn2=True, deepspeed=None, report_to="none")
    config.update(bf16=bf16, torch_dtype="bfloat16" if bf16 else "float32")
    config_path = out / "hpsv3.yaml"
    config_path.write_text(yaml.safe_dump(config))
    (_data, training, model_config, lora), _ = parse_args_with_yaml(
        (DataConfig, TrainingConfig, ModelConfig, PEFTLoraConfig), str(config_path), is_train=False
    )
    model, _processor, _peft = create_model_and_processor(
        model_config=model_config, peft_lora_config=lora, training_args=training
    )
    checkpoint = out / "hpsv3.safetensors"
    safetensors.torch.save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(checkpoint))
    return config_path, checkpoint


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--size", choices=sorted(SIZES), default="tiny")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    base = write_base(args.out, args.size, args.device)
    config, checkpoint = write_checkpoint(args.out, base, bf16=args.device.startswith("cuda"))
    print(f"WATERCOLOUR_SCORER_HPSV3_CONFIG={config}\nWATERCOLOUR_SCORER_HPSV3_CHECKPOINT={checkpoint}")


if __name__ == "__main__":
    main()

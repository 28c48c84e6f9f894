"""Run by the scorer's own Python (torch + transformers 4.45.2): scores paintings
with the tiny HPSv3 through transformers' own vision attention and through ours,
and prints both as JSON. Usage: vision_attention_check.py CONFIG CHECKPOINT PNG..."""

import json
import sys

from PIL import Image
from transformers.models.qwen2_vl import modeling_qwen2_vl

from watercolour_scorer.backends.hpsv3_model import Hpsv3Backend
from watercolour_scorer.settings import ScorerSettings

config, checkpoint, *paths = sys.argv[1:]
original = modeling_qwen2_vl.VisionSdpaAttention.forward
backend = Hpsv3Backend(ScorerSettings(backend="hpsv3", device="cpu", hpsv3_config=config, hpsv3_checkpoint=checkpoint))
backend.load()  # installs the per-image attention
images = [Image.open(path).convert("RGB") for path in paths]
images.append(images[0].resize((300, 420)))  # one image of another size: the unequal-length branch
prompts = ["a loose watercolour flower"] * len(images)
ours = backend.score_batch(images, prompts)
modeling_qwen2_vl.VisionSdpaAttention.forward = original
theirs = backend.score_batch(images, prompts)
print(json.dumps({"ours": ours, "theirs": theirs}))

"""HPSv3 through the `hpsv3` package, in the scorer's own Python environment.

The package pins transformers 4.45.2 (it cannot share an environment with the
trainer). Weights come from the Hub cache at start-up (HF_HOME) unless a local
checkpoint is given; the config's dtype (bf16 for the 7B model) is used on the
device. Arguments go by keyword: their order changed between releases.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PIL import Image

from watercolour_scorer.settings import ScorerSettings

log = logging.getLogger(__name__)


class Hpsv3Backend:
    name = "hpsv3"

    def __init__(self, settings: ScorerSettings):
        self.settings = settings
        self.model = "MizzenAI/HPSv3"
        self.version = "unloaded"
        self._inferencer = None

    def load(self) -> None:
        import torch
        from hpsv3 import HPSv3RewardInferencer

        from watercolour_scorer.backends import vision_attention

        vision_attention.install()

        device = self.settings.device
        if device.startswith("cuda") and not torch.cuda.is_available():
            raise RuntimeError(f"WATERCOLOUR_SCORER_DEVICE={device} but no CUDA device is visible")
        config, checkpoint = self.settings.hpsv3_config, self.settings.hpsv3_checkpoint
        self._inferencer = HPSv3RewardInferencer(
            config_path=str(config) if config else None,
            checkpoint_path=str(checkpoint) if checkpoint else None,
            device=device,
        )
        if checkpoint:
            stat = Path(checkpoint).stat()
            self.model, self.version = str(checkpoint), f"hpsv3-1.0.0+local:{stat.st_size}:{int(stat.st_mtime)}"
        else:
            self.version = "hpsv3-1.0.0+MizzenAI/HPSv3"
        log.info("HPSv3 loaded on %s (%s)", device, self.version)

    def score_batch(self, images: list[Image.Image], prompts: list[str]) -> list[tuple[float, float]]:
        import torch

        with torch.inference_mode():
            logits = self._inferencer.reward(image_paths=images, prompts=prompts)
        return [(float(row[0]), float(row[1])) for row in logits.float().cpu()]

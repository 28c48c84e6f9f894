"""Where each part of a run directory lives (docs/run-directory.md); the one place its names are spelled."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

PLAN = "run.json"
METRICS = "metrics.jsonl"
FILM = "film"
CHECKPOINTS = "checkpoints"
# The trained weights: a LoRA adapter (PEFT layout) when the run trained one, else the whole model.
ADAPTER = "adapter"
MODEL = "model"
# What the demo adds to its run: its services' and the trainer's logs, its summary, its warm start's record.
LOGS = "logs"
SUMMARY_JSON, SUMMARY_TXT = "summary.json", "summary.txt"
WARM_START_RECORD = "warm_start.json"
# The held-out curve (run_dir/curve.py): its points, and beside them each point's eval folder, curve/checkpoint-N/.
CURVE_DIR = "curve"
CURVE = f"{CURVE_DIR}/curve.json"
# What goes to the Hub beside the weights, and what `check-run --from-hub` fetches back.
RECORDS = (f"{FILM}/**", METRICS, PLAN, CURVE)


ROLLOUTS_SUFFIX = "-rollouts"


def rollouts_repo(push_to: str) -> str:
    """The Hub dataset that receives a run's rollouts, beside the model repo `push_to` that receives its weights."""
    return f"{push_to}{ROLLOUTS_SUFFIX}"


STEP_DIR = re.compile(r"step-(\d+)")
CHECKPOINT_DIR = re.compile(r"checkpoint-(\d+)")  # a checkpoint the trainer saved in checkpoints/, at step N
ROLLOUT_JSON = re.compile(r"rollout-(\d+)\.json")
# A rollout's painting and code, and with revisions each turn's (rollout-NN-turn-T.png, .js).
FILM_FILE = re.compile(r"rollout-\d+(-turn-\d+)?\.(png|js)")

WeightsKind = Literal["adapter", "model"]
ADAPTER_WEIGHTS = ("adapter_model.safetensors", "adapter_model.bin")  # beside adapter_config.json
MODEL_WEIGHTS = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin", "pytorch_model.bin.index.json")


def step_name(step: int) -> str:
    return f"step-{step:06d}"


def rollout_name(index: int) -> str:
    return f"rollout-{index:02d}"


def turn_name(index: int, turn: int) -> str:
    """One painting of a rollout with revisions: turn 0 is the first, 1 to N each revision."""
    return f"{rollout_name(index)}-turn-{turn}"


def painting_path(step: int, index: int) -> str:
    """A painting's path relative to the run directory, as metrics.jsonl's `best` names it."""
    return f"{FILM}/{step_name(step)}/{rollout_name(index)}.png"


def weights_kind(files: Collection[str]) -> WeightsKind | None:
    """What a folder (or a Hub repository) holding these files is: an adapter, a whole model, or neither."""
    if "adapter_config.json" in files and any(name in files for name in ADAPTER_WEIGHTS):
        return "adapter"
    if "config.json" in files and any(name in files for name in MODEL_WEIGHTS):
        return "model"
    return None


@dataclass(frozen=True)
class SavedWeights:
    kind: WeightsKind
    folder: Path


class RunLayout:
    """The paths of one run directory; the reader and the writer share them."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.plan_path = self.root / PLAN
        self.metrics_path = self.root / METRICS
        self.film = self.root / FILM
        self.checkpoints = self.root / CHECKPOINTS
        self.adapter = self.root / ADAPTER
        self.model = self.root / MODEL
        self.logs = self.root / LOGS
        self.summary_json, self.summary_txt = self.root / SUMMARY_JSON, self.root / SUMMARY_TXT
        self.warm_start_record = self.root / WARM_START_RECORD

    def step_dir(self, step: int) -> Path:
        return self.film / step_name(step)

    def rollout_stem(self, step: int, index: int) -> Path:
        """The rollout's files without their suffix: .json (the record), .js (the code), .png (the painting)."""
        return self.step_dir(step) / rollout_name(index)

    def turn_stem(self, step: int, index: int, turn: int) -> Path:
        """One turn's files without their suffix: .js (the code it painted), .png (its painting)."""
        return self.step_dir(step) / turn_name(index, turn)

    def weights_dir(self, lora: bool) -> Path:
        """Where the trainer saves what it trained."""
        return self.adapter if lora else self.model

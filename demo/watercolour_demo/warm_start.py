"""The tiny policy's warm start: a tokenizer and a small decoder trained here on generated sketches, so
that GRPO starts from a policy whose sketches mostly pass the gate.

Built once per configuration and kept in CACHE_DIR/warm-start-KEY, a folder `--model` loads; the key
hashes the configuration and a probe of the generator, so a changed generator builds a new one.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from watercolour_demo.sketchgen import generate_sketch
from watercolour_shared.subjects import DEFAULT_SUBJECT

FORMAT = 1  # raise when the way a warm start is built changes
RECORD = "warm_start.json"
TOKENIZER_SKETCHES = 500  # as many as the vocabulary needs; all of them would take over a gigabyte
DEFAULT_CACHE = Path.home() / ".cache" / "watercolour-rl"


@dataclass(frozen=True)
class WarmStartConfig:
    subject: str = DEFAULT_SUBJECT
    size: str = "base"
    vocab_size: int = 4096
    detail: float = 0.3
    # Two compositions with the same strokes, cycled through: the close-up is the single bloom under one zoom
    # line, so it covers twice the sheet whatever the policy's coordinates, and the rewards prefer it. The
    # warm start paints it in a quarter of its sketches: a choice made in the first lines that GRPO can learn.
    compositions: tuple[str, ...] = ("single", "single", "single", "close-up")
    # No ground wash: it scores nothing and takes a quarter of a render (a close-up's most of all), and
    # rendering is most of a GRPO step here.
    paper_wash: bool = False
    sketches: int = 2400  # distinct sketches
    epochs: int = 1  # passes over them; a few sketches seen many times are learnt by heart (quick, for tests)
    batch_size: int = 8
    lr: float = 3e-3
    seed: int = 0

    def key(self) -> str:
        # A sketch of every composition the corpus uses: a change to any of them in the generator is a new key.
        knobs = {"detail": self.detail, "paper_wash": self.paper_wash}
        sketches = [generate_sketch(self.subject, 0, composition=c, **knobs) for c in sorted(set(self.compositions)) or [None]]
        probe = hashlib.sha256("".join(sketches).encode()).hexdigest()
        described = json.dumps({"format": FORMAT, "probe": probe, **asdict(self)}, sort_keys=True)
        return hashlib.sha256(described.encode()).hexdigest()[:16]


def cached_warm_start(config: WarmStartConfig, cache_dir: Path, on_step: Callable | None = None) -> tuple[Path, dict]:
    """The warm start's folder and its record; built first if the cache does not hold it."""
    folder = Path(cache_dir) / f"warm-start-{config.key()}"
    if not (folder / RECORD).exists():
        # Built under another name and renamed whole: an interrupted build never looks finished.
        building = folder.with_name(f".{folder.name}.{os.getpid()}")
        shutil.rmtree(building, ignore_errors=True)
        building.mkdir(parents=True)
        try:
            build(config, building, on_step)
        except BaseException:
            shutil.rmtree(building, ignore_errors=True)
            raise
        shutil.rmtree(folder, ignore_errors=True)
        building.rename(folder)
    return folder, json.loads((folder / RECORD).read_text())


def build(config: WarmStartConfig, folder: Path, on_step: Callable | None = None) -> dict:
    # Torch and transformers load here, not on import: the demo's own process only needs the configuration.
    from watercolour_demo import supervised
    from watercolour_demo.corpus import Sketches, prompt_ids, reply_ids
    from watercolour_demo.tiny_policy import SIZES, build_policy, build_tokenizer, save_policy

    started = time.monotonic()
    sketches = Sketches(config.subject, config.detail, config.compositions, config.paper_wash)
    replies = sketches.replies(config.sketches, config.seed)
    tokenizer = build_tokenizer(sketches.tokenizer_texts(replies[:TOKENIZER_SKETCHES]), config.vocab_size, whole_lines=True)
    model = build_policy(tokenizer, SIZES[config.size], config.seed)
    prompt = prompt_ids(tokenizer, config.subject)
    encoded = [reply_ids(tokenizer, reply) for reply in replies]
    order = random.Random(config.seed)
    passes = [order.sample(encoded, len(encoded)) for _ in range(config.epochs)]
    examples = [reply for one_pass in passes for reply in one_pass]
    losses = supervised.train(model, prompt, examples, tokenizer.pad_token_id, config.batch_size, config.lr, on_step)
    save_policy(model, tokenizer, folder)
    lengths = [len(reply) for reply in encoded]
    record = {
        "config": asdict(config),
        "parameters": sum(p.numel() for p in model.parameters()),
        "prompt_tokens": len(prompt),
        "reply_tokens": {"median": statistics.median(lengths), "max": max(lengths)},
        "loss": {"first": losses[0], "last": statistics.fmean(losses[-10:])},
        "seconds": round(time.monotonic() - started, 1),
    }
    (folder / RECORD).write_text(json.dumps(record, indent=2))
    return record

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
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from watercolour_demo.corpus import Sketches
from watercolour_demo.corpus_subjects import corpus_subjects
from watercolour_harness.sketchgen import generate_sketch
from watercolour_harness.sketchgen.looks import EVERY_LOOK
from watercolour_shared.prompts import system_prompt, user_prompt
from watercolour_shared.subjects import DEFAULT_SUBJECT, SubjectSet

# What GRPO trains on: both bloom painters (hibiscus, flower) in six palettes. The warm start paints them in
# half its sketches and subjects drawn from templates in the other half (corpus_subjects.py). None of them is
# in a held-out set (tests/demo/test_corpus_subjects.py).
DEMO_SUBJECTS = (
    DEFAULT_SUBJECT,
    "a violet anemone",
    "a golden marigold",
    "a coral camellia",
    "a crimson peony",
    "a blue cornflower",
)
FORMAT = 6  # raise when the way a warm start is built changes
RECORD = "warm_start.json"
TOKENIZER_SKETCHES = 500  # as many as the vocabulary needs; all of them would take over a gigabyte
DEFAULT_CACHE = Path.home() / ".cache" / "watercolour-rl"


@dataclass(frozen=True)
class WarmStartConfig:
    subjects: tuple[str, ...] = DEMO_SUBJECTS  # GRPO's, in turn at every other sketch; drawn ones between
    size: str = "base"
    vocab_size: int = 4096
    detail: float = 0.3
    # One bloom on its stem: the generator's other compositions are up to half as long again, and a longer
    # sketch costs the tiny policy's training, GRPO's generation and every render in proportion.
    composition: str = "single"
    # Every sketch's look (zoom, wash, glaze: sketchgen/looks.py) is drawn from all their levels, so the warm
    # start paints every combination, each chosen in its first lines: choices GRPO can learn between.
    # No ground wash: it scores nothing and takes a quarter of a render (a zoomed one's most of all), and
    # rendering is most of a GRPO step here.
    paper_wash: bool = False
    # Untied: GRPO raises the odds of a look by raising its line's output row, and a tied row is also that
    # line's input embedding, so every token after the line would see it changed: the looks GRPO favoured
    # were the ones whose sketches broke (all 6 held-out replies of the tuned policy that failed the gate, in
    # two seeds, wrote the look it had learned). The untied layer costs memory, not time.
    tied_embeddings: bool = False
    sketches: int = 2400  # distinct sketches
    epochs: int = 1  # passes over them; a few sketches seen many times are learnt by heart (quick, for tests)
    batch_size: int = 8
    lr: float = 3e-3
    seed: int = 0
    # Subjects its corpus must not draw besides the shipped held-out set: a closing eval's own (apart_from).
    held_out: tuple[str, ...] = ()

    def sketch_subjects(self) -> list[str]:
        """The subject of each sketch it learns from."""
        return corpus_subjects(self.subjects, self.sketches, self.seed, self.held_out)

    def apart_from(self, evaluated: SubjectSet) -> WarmStartConfig:
        """This warm start, or, where its corpus draws a subject of `evaluated`, one whose corpus draws none of
        them (a new key): an evaluation calls its subjects held out, so the policy must never have seen them."""
        if not evaluated.shared_with(self.sketch_subjects()):
            return self
        return replace(self, held_out=evaluated.subjects)

    def generator(self, subjects: tuple[str, ...] | None = None) -> Sketches:
        """The generator as this warm start paints: its subjects (or `subjects`) in turn, its knobs."""
        return Sketches(subjects or self.subjects, self.composition, self.detail, self.paper_wash)

    def key(self) -> str:
        # A sketch of every subject in every look: a change to the generator's painting of any of them is a new key.
        knobs = self.generator().knobs()
        sketches = [generate_sketch(subject, 0, look=look, **knobs) for subject in self.subjects for look in EVERY_LOOK]
        probe = hashlib.sha256("".join(sketches).encode()).hexdigest()
        # The prompts every example answers: a policy warm-started on other words meets GRPO's as a stranger.
        prompts = hashlib.sha256((system_prompt() + user_prompt("\0")).encode()).hexdigest()
        fields = asdict(self)
        if not self.held_out:
            del fields["held_out"]  # so every key from before the field existed still names its cached policy
        described = json.dumps({"format": FORMAT, "probe": probe, "prompts": prompts, **fields}, sort_keys=True)
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
    from watercolour_demo.corpus import prompt_ids, reply_ids
    from watercolour_harness.tiny_policy import SIZES, build_policy, build_tokenizer, save_policy

    started = time.monotonic()
    subjects = config.sketch_subjects()
    sketches = config.generator(tuple(subjects))
    replies = sketches.replies(config.sketches, config.seed)
    texts = sketches.tokenizer_texts([reply for _, reply in replies[:TOKENIZER_SKETCHES]])
    tokenizer = build_tokenizer(texts, config.vocab_size, whole_lines=True)
    model = build_policy(tokenizer, SIZES[config.size], config.seed, tied=config.tied_embeddings)
    prompts = {subject: prompt_ids(tokenizer, subject) for subject in set(subjects)}
    encoded = [(prompts[subject], reply_ids(tokenizer, reply)) for subject, reply in replies]
    order = random.Random(config.seed)
    passes = [order.sample(encoded, len(encoded)) for _ in range(config.epochs)]
    examples = [example for one_pass in passes for example in one_pass]
    losses = supervised.train(model, examples, tokenizer.pad_token_id, config.batch_size, config.lr, on_step)
    save_policy(model, tokenizer, folder)
    lengths = [len(reply) for _, reply in encoded]
    record = {
        "config": asdict(config),
        "parameters": sum(p.numel() for p in model.parameters()),
        "prompt_tokens": max(len(prompt) for prompt in prompts.values()),
        "reply_tokens": {"median": statistics.median(lengths), "max": max(lengths)},
        "loss": {"first": losses[0], "last": statistics.fmean(losses[-10:])},
        "seconds": round(time.monotonic() - started, 1),
    }
    (folder / RECORD).write_text(json.dumps(record, indent=2))
    return record

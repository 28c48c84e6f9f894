"""Scorer benchmark: the real hpsv3 inference path on a random-weight HPSv3 of a
given size; prints JSON and writes it to --out.

Measures model build and load time, images per second at batch 1, 8 and 32
(600x600 PNG paintings, HPSv3's own preprocessing), and peak GPU memory.

    python bench/scorer_bench.py --size 7b --device cuda --out bench/results
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from PIL import Image

from watercolour_harness import record
from watercolour_scorer.backends.hpsv3_model import Hpsv3Backend
from watercolour_scorer.random_hpsv3 import write_base, write_checkpoint
from watercolour_scorer.settings import ScorerSettings
from watercolour_shared.score_wire import DEFAULT_PROMPT

BENCH_DIR = Path(__file__).resolve().parent
PAINTINGS = sorted((BENCH_DIR.parent / "services" / "env" / "watercolour_env" / "data" / "pool" / "images").glob("*.png"))


def paintings(count: int) -> list[Image.Image]:
    """Real 600x600 renders: the project's reference pool."""
    return [Image.open(PAINTINGS[i % len(PAINTINGS)]).convert("RGB") for i in range(count)]


def _synchronise(torch) -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def throughput(backend: Hpsv3Backend, batch: int, repeats: int) -> dict:
    import torch

    images, prompts = paintings(batch), [DEFAULT_PROMPT] * batch
    backend.score_batch(images, prompts)  # warm-up
    _synchronise(torch)
    started = time.perf_counter()
    for _ in range(repeats):
        backend.score_batch(images, prompts)
    _synchronise(torch)
    seconds = (time.perf_counter() - started) / repeats
    return {"batch": batch, "seconds_per_pass": round(seconds, 4), "images_per_s": round(batch / seconds, 1)}


def main(args) -> dict:
    import torch

    with tempfile.TemporaryDirectory(dir=args.work) as work:
        started = time.perf_counter()
        base = write_base(Path(work), args.size, args.device)
        config, checkpoint = write_checkpoint(Path(work), base, bf16=args.device.startswith("cuda"))
        built_s = time.perf_counter() - started
        settings = ScorerSettings(backend="hpsv3", device=args.device, hpsv3_config=config, hpsv3_checkpoint=checkpoint)
        backend = Hpsv3Backend(settings)
        started = time.perf_counter()
        backend.load()
        load_s = time.perf_counter() - started
        if torch.cuda.is_available():
            torch.cuda.reset_peak_memory_stats()
        runs = [throughput(backend, batch, args.repeats) for batch in (1, 8, 32)]
        gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else None
        peak = torch.cuda.max_memory_allocated() / 2**30 if torch.cuda.is_available() else None
        params = sum(p.numel() for p in backend._inferencer.model.parameters())
    return {
        **record.header("scorer", gpu=gpu, torch=torch.__version__),
        "model": {"size": args.size, "parameters": params, "dtype": str(next(backend._inferencer.model.parameters()).dtype)},
        "build_random_model_s": round(built_s, 1),
        "load_s": round(load_s, 1),
        "throughput": runs,
        "peak_gpu_memory_gib": round(peak, 2) if peak is not None else None,
        "paintings": "the bundled reference pool (600x600 renders)",
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", default="tiny", choices=["tiny", "7b"])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--work", default=None, help="where the random model is written (needs ~35 GB for 7b)")
    parser.add_argument("--out", type=Path, default=BENCH_DIR / "results")
    arguments = parser.parse_args()
    record.write(main(arguments), f"-{arguments.size}-{arguments.device.split(':')[0]}", folder=arguments.out)

"""A compile cache that outlives the run (`--compile_cache DIR`; issue 26).

The first step compiles the decode step (75-117 s on one H200, bench/results/grpo-step-35b-h200-2026-12-0*.json).
A second process that found inductor's cache on disk compiled in 13 s instead of 78 s, but inductor keeps it
under /tmp and a Hugging Face Job starts on a fresh machine. With `--compile_cache DIR` (a mounted volume, a
folder kept between runs), inductor's and Triton's caches live in DIR, and after each step that compiled the
trainer also writes PyTorch's portable cache artifacts (`torch.compiler.save_cache_artifacts`, the "mega-cache")
to DIR/torch-compile-artifacts.bin, which the next run loads before it compiles. The artifacts hold compiled
code for this torch, Triton, GPU and model shape; a mismatch is not an error, it compiles again. Off by default:
not yet measured on the GPU.
"""

from __future__ import annotations

import os
from pathlib import Path

import torch
from transformers import TrainerCallback

from watercolour_trainer.compiled_generation import CompileCount

ARTIFACTS = "torch-compile-artifacts.bin"


def use(folder: Path) -> bool:
    """Point inductor's and Triton's caches at `folder` and load the artifacts an earlier run saved there.
    Call before anything compiles. True when artifacts were loaded."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str((folder / "inductor").resolve())
    os.environ["TRITON_CACHE_DIR"] = str((folder / "triton").resolve())
    path = folder / ARTIFACTS
    if not path.is_file():
        return False
    return torch.compiler.load_cache_artifacts(path.read_bytes()) is not None


def save(folder: Path) -> int:
    """Write this process's compile artifacts to `folder` (atomically); the bytes written, 0 if none."""
    artifacts = torch.compiler.save_cache_artifacts()
    if artifacts is None:
        return 0
    data, _ = artifacts
    path = Path(folder) / ARTIFACTS
    partial = path.with_suffix(".partial")
    partial.write_bytes(data)
    partial.replace(path)
    return len(data)


class SaveCompileCache(TrainerCallback):
    """After a step that compiled something, save the artifacts (the main process only)."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self._graphs = CompileCount.now().graphs

    def on_step_end(self, args, state, control, **kwargs):
        graphs = CompileCount.now().graphs
        if state.is_world_process_zero and graphs > self._graphs:
            save(self.folder)
        self._graphs = graphs

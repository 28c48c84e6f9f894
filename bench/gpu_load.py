"""A GPU job that stands in for a trainer beside the renders: bf16 8192x8192 matmuls for N seconds.

Prints one JSON line a second, {"tflops": ...}: what the job achieved in that second. Run in its own
process, as a trainer is, so the GPU time-slices it against the browsers' GPU contexts.

    python bench/gpu_load.py 20
"""

from __future__ import annotations

import json
import sys
import time

import torch

SIZE = 8192


def main(seconds: float) -> None:
    a = torch.randn(SIZE, SIZE, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(SIZE, SIZE, device="cuda", dtype=torch.bfloat16)
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        started, products = time.perf_counter(), 0
        while time.perf_counter() - started < 1.0:
            for _ in range(10):
                a @ b
            torch.cuda.synchronize()
            products += 10
        elapsed = time.perf_counter() - started
        print(json.dumps({"tflops": round(2 * SIZE**3 * products / elapsed / 1e12, 1)}), flush=True)


if __name__ == "__main__":
    main(float(sys.argv[1]))

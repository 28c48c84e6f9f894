"""`--compile-cache DIR`: a run's compiled code saved to DIR after the step that compiled it, and a later run
(another process) loading it before it compiles, with the same result. Each run is its own process, on the CPU."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from watercolour_trainer import compile_cache
from watercolour_trainer.config import parse

RUN = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from types import SimpleNamespace

    import torch
    from torch._dynamo.utils import counters

    from watercolour_trainer import compile_cache

    folder = Path(sys.argv[1])
    loaded = compile_cache.use(folder)
    saver = compile_cache.SaveCompileCache(folder)
    step = torch.compile(lambda x: torch.sin(x) * 2 + 1)
    x = torch.arange(16, dtype=torch.float32)
    assert torch.allclose(step(x), torch.sin(x) * 2 + 1)
    saver.on_step_end(None, SimpleNamespace(is_world_process_zero=True), None)
    print(loaded, (folder / compile_cache.ARTIFACTS).is_file(), counters["inductor"]["fxgraph_cache_hit"])
    """
)


def run(folder) -> list[str]:
    done = subprocess.run([sys.executable, "-c", RUN, str(folder)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split()


def test_a_second_run_loads_what_the_first_compiled(tmp_path):
    first = run(tmp_path / "cache")
    assert first[:2] == ["False", "True"]  # nothing to load yet; saved after the step that compiled
    assert (tmp_path / "cache" / "inductor").is_dir()
    second = run(tmp_path / "cache")
    assert second[:2] == ["True", "True"] and int(second[2]) >= 1  # loaded, and inductor's graph cache hit


def test_the_switch_is_off_unless_a_folder_is_given(tmp_path):
    required = ["--env_url", "http://env", "--model_name_or_path", "m", "--use_cpu"]
    assert parse(required).compile_cache is None
    assert parse([*required, "--compile_cache", str(tmp_path)]).compile_cache == str(tmp_path)
    assert compile_cache.save(tmp_path) >= 0

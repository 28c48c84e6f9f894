"""The WebGL modes have one list: the settings' `chromium_gl` Literal (CHROMIUM_GL_MODES). Chromium's flag sets
(render/chromium.py's GL_FLAGS) must be exactly its modes but `auto`, and the GRPO step bench's `--envs` takes
every one of them (it once refused `llvmpipe` and `auto`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import get_args

import pytest

from watercolour_env.render.chromium import GL_FLAGS, GPU_MODES
from watercolour_env.settings import CHROMIUM_GL_MODES, EnvSettings

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_every_flag_set_is_a_setting_and_every_setting_but_auto_a_flag_set():
    assert sorted(CHROMIUM_GL_MODES) == sorted({"auto", *GL_FLAGS}) and len(set(CHROMIUM_GL_MODES)) == len(CHROMIUM_GL_MODES)
    assert set(GPU_MODES) <= set(GL_FLAGS)
    assert get_args(EnvSettings.model_fields["chromium_gl"].annotation) == CHROMIUM_GL_MODES


def test_the_step_bench_takes_every_mode_the_environment_takes(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))
    step_env = pytest.importorskip("step_env")
    try:
        assert step_env.parse_envs(",".join(CHROMIUM_GL_MODES)) == list(CHROMIUM_GL_MODES)
        assert step_env.parse_envs("length-only,llvmpipe,auto") == ["length-only", "llvmpipe", "auto"]
        with pytest.raises(ValueError, match="unknown environment"):
            step_env.parse_envs("gpu-metal")
    finally:
        sys.modules.pop("step_env", None)

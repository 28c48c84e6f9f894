"""Every setting of the environment service, read from the environment in one place."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import Literal, get_args

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from watercolour_shared.judge.defaults import DEFAULT_MODEL, HF_ROUTER_URL
from watercolour_shared.judge.factory import HF_ROUTER_HOST
from watercolour_shared.retired_names import VARIABLES as RETIRED_VARIABLES
from watercolour_shared.retired_names import refusal
from watercolour_shared.reward import DEFAULT_MIX, MixWeights, parse_weights, preset
from watercolour_shared.score_wire import DEFAULT_PROMPT
from watercolour_shared.timeouts import JUDGE_TIMEOUT_S, QUEUE_TIMEOUT_S, RENDER_DEADLINE_S, SCORER_TIMEOUT_S, client_wait_s

ASSETS_DIR = Path(__file__).resolve().parent.parent / "assets" / "node_modules"
# How WebGL is drawn: `auto`, or a flag set of render/chromium.py's GL_FLAGS (tests/env/test_gl_modes.py holds the two
# together). Benches that pick a mode read CHROMIUM_GL_MODES, not a list of their own.
ChromiumGL = Literal["auto", "llvmpipe", "software", "angle-swiftshader", "gpu-vulkan", "gpu-egl"]
CHROMIUM_GL_MODES: tuple[str, ...] = get_args(ChromiumGL)


class EnvSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="WATERCOLOUR_", extra="ignore", populate_by_name=True)

    chromium_path: Path = Field(Path("/usr/bin/chromium"), description="Debian's Chromium binary")
    assets_dir: Path = Field(ASSETS_DIR, description="node_modules holding p5 and p5.brush")
    allowlist_path: Path | None = Field(None, description="JSON allowlist replacing the default one (data/allowlist.json)")
    browsers: int = Field(default_factory=lambda: max(1, os.cpu_count() or 1), ge=1, le=64)
    chromium_gl: ChromiumGL = Field(
        "auto", description="how WebGL is drawn: auto takes the host's GPU when one answers, else llvmpipe, else software"
    )
    isolate_network: bool = Field(True, description="run Chromium in an empty network namespace")
    allow_shared_network: bool = Field(
        False, description="start even where no namespace can be made (requests stay blocked by routing alone)"
    )
    recycle_after: int = Field(50, ge=1, description="renders before a browser is replaced")
    render_deadline_s: float = Field(RENDER_DEADLINE_S, gt=0, description="hard limit on one sketch's load + draw")
    memory_limit_mb: int = Field(1024, ge=64, description="how far one render may grow its browser's memory")
    queue_timeout_s: float = Field(QUEUE_TIMEOUT_S, gt=0, description="wait for a free browser before answering unavailable")
    max_pending: int = Field(512, ge=1, description="renders queued beyond this are refused as unavailable")
    # The recipe's completions stop at 8,192 tokens (about 33,000 characters); three times that keeps the worst reply the
    # gate can be sent (unparseable text, where tree-sitter's error recovery is slowest) under a second (bench/gate_bench.py).
    max_code_chars: int = Field(100_000, ge=1000, description="a longer reply fails the gate as oversized, before any other work")
    canvas_size: int = 600
    redis_url: str = Field("redis://127.0.0.1:6379/0", alias="REDIS_URL")
    cache_ttl_s: int = Field(7 * 24 * 3600, ge=0)
    max_sessions: int = Field(256, ge=1, description="concurrent OpenEnv sessions of every kind (/ws, /mcp)")
    # A session nobody has sent a message for this long is closed, so a leaked client cannot hold one of `max_sessions`
    # for ever. An hour: longer than a recipe's training step, between two episodes of a TRL-pooled session.
    session_idle_timeout_s: float = Field(3600.0, gt=0, description="close an OpenEnv session idle this long")
    # A session that has done nothing since its create (a bare `POST /mcp` create, a socket that never sent a message)
    # is closed sooner, so creates nobody uses cannot hold every slot for the idle timeout.
    session_grace_s: float = Field(60.0, gt=0, description="close an OpenEnv session unused this long after its create")
    # A client gone without closing its socket (a killed machine, a dropped network) misses a ping; its socket and
    # session are closed after one interval more.
    ws_ping_s: float = Field(20.0, gt=0, description="WebSocket ping interval, and how long a pong may take")
    # The HPSv3 term: the scoring service (services/scorer), unset = not configured.
    scorer_url: str | None = Field(None, description="e.g. http://localhost:8001")
    scorer_token: str | None = Field(None, description="the scorer's bearer token, when it needs one")
    scorer_timeout_s: float = Field(SCORER_TIMEOUT_S, gt=0)
    hps_prompt: str = Field(DEFAULT_PROMPT, description="the recipe scored every image with this prompt")
    # The judge term: a VLM through an OpenAI-compatible endpoint, the offline stand-in, or off.
    judge: Literal["router", "offline", "off"] = Field("router", description="router = any chat-completions endpoint")
    judge_base_url: str = HF_ROUTER_URL
    judge_model: str = DEFAULT_MODEL
    hf_token: str | None = Field(None, alias="HF_TOKEN")
    judge_max_concurrency: int = Field(16, ge=1)
    judge_references: int = Field(4, ge=1, le=16)
    judge_tier_mix: dict[str, float] = Field(
        {"love": 2, "okay": 2}, description='how many references of each tier, JSON, e.g. {"love": 2, "okay": 2}'
    )
    # Who writes the critique an episode with revisions reads (docs/revisions.md, "The VLM critic"): the measuring rules,
    # or a VLM asked through the judge's endpoint and HF_TOKEN, shown the painting and never the references.
    critic: Literal["rules", "vlm"] = Field(
        "rules", description="rules = measured and deterministic; vlm = a VLM's critique, the rules' beside it"
    )
    critic_base_url: str | None = Field(None, description="the critic's chat-completions endpoint; the judge's when unset")
    critic_model: str | None = Field(None, description="the critic's VLM; the judge's when unset")
    critic_timeout_s: float = Field(
        JUDGE_TIMEOUT_S, gt=0, description="the most one critique waits, retries included; then the rules' critique stands in"
    )
    pool_path: Path | None = Field(None, description="a local pool folder; wins over the Hub pool")
    pool_repo: str = "HuggingEnvs/watercolour-reference-pool"
    pool_revision: str = Field("main", description="a 40-hex commit for reproducible runs; a branch floats (warned at load)")
    # The weights for a client that sends none (the trainer always sends its own): WATERCOLOUR_WEIGHTS, every term
    # named, else the preset WATERCOLOUR_MIX.
    weights: str | None = Field(None, description="every term named: judge=0.6,hps=0.3,gate=0.05,length=0.05; wins over mix")
    mix: str = Field(DEFAULT_MIX, description="judge-led | hps-led | hps-only")
    # Loopback unless asked: the server has no authentication. Each image asks for 0.0.0.0.
    host: str = "127.0.0.1"
    port: int = 8000

    def limits(self) -> dict[str, float]:
        """The seconds a request may take here, and what a client should wait for one reward (/ready reports them)."""
        limits = {
            "queue_timeout_s": self.queue_timeout_s,
            "render_deadline_s": self.render_deadline_s,
            "scorer_timeout_s": self.scorer_timeout_s,
            "judge_timeout_s": JUDGE_TIMEOUT_S,
        }
        wait = client_wait_s(*limits.values())
        if self.critic == "vlm":  # a turn of an episode with revisions asks the critic after its reward
            limits["critic_timeout_s"] = self.critic_timeout_s
            wait += self.critic_timeout_s
        return {**limits, "client_wait_s": wait}

    def critic_endpoint(self) -> tuple[str, str]:
        """The critic's base URL and model: the judge's unless set."""
        return self.critic_base_url or self.judge_base_url, self.critic_model or self.judge_model

    @field_validator("weights")
    @classmethod
    def _weights_name_every_term(cls, text: str | None) -> str | None:
        if text is not None:
            parse_weights(text)  # a typo stops the service at start-up, with the term named
        return text

    @model_validator(mode="after")
    def _default_weights_hold(self) -> EnvSettings:
        self.default_weights()  # an unknown preset stops the service at start-up
        return self

    @model_validator(mode="after")
    def _no_retired_variable(self) -> EnvSettings:
        # Set and not read, an old name would quietly give the service another setting than its owner meant.
        for old, new in RETIRED_VARIABLES.items():
            if os.environ.get(old):
                raise ValueError(refusal(old, new))
        return self

    @model_validator(mode="after")
    def _critic_can_ask(self) -> EnvSettings:
        # Every call would be refused, found only at the first revision: stop at start-up instead.
        if self.critic == "vlm" and not self.hf_token and HF_ROUTER_HOST in self.critic_endpoint()[0]:
            raise ValueError("WATERCOLOUR_CRITIC=vlm asks the HF router: set HF_TOKEN or WATERCOLOUR_CRITIC_BASE_URL")
        return self

    def default_weights(self) -> MixWeights:
        return parse_weights(self.weights) if self.weights else preset(self.mix)


@cache
def get_settings() -> EnvSettings:
    return EnvSettings()

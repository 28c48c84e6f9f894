"""The one place a judge is made: the environment's judge term (WATERCOLOUR_JUDGE, _JUDGE_BASE_URL, _JUDGE_MODEL) and
studio's `eval` and `pool calibrate` (--judge, --judge-base-url, --judge-model) offer the same judges, checked alike.

The environment's setting has one value more, `off` (no judge term); that is a switch on the term, not a judge.
Modules are imported on use, so a parser can offer JUDGES without loading an HTTP client."""

from __future__ import annotations

from typing import TYPE_CHECKING

from watercolour_shared.judge.defaults import DEFAULT_MODEL, HF_ROUTER_URL

if TYPE_CHECKING:
    from watercolour_shared.judge.pairwise import Judge

JUDGES = ("router", "offline")  # router = a chat VLM on any OpenAI-compatible endpoint; offline = the stand-in
HF_ROUTER_HOST = "huggingface.co"


class NoJudge(ValueError):
    """The judge asked for cannot be made; the message says why (the caller adds how to fix it in its own terms)."""


def make_judge(
    kind: str, base_url: str = HF_ROUTER_URL, token: str | None = None, model: str = DEFAULT_MODEL, max_concurrency: int = 16
) -> Judge:
    """The judge of that kind. Raises NoJudge for an unknown kind, or the HF router without a token (every call
    would be refused, found only at the first comparison)."""
    if kind == "offline":
        from watercolour_shared.judge.offline import OfflineJudge

        return OfflineJudge()
    if kind != "router":
        raise NoJudge(f"unknown judge {kind!r}: choose from {', '.join(JUDGES)}")
    if not token and HF_ROUTER_HOST in base_url:
        raise NoJudge("HF_TOKEN is not set for the HF router judge")
    from watercolour_shared.judge.chat_judge import ChatJudge

    return ChatJudge(base_url, token, model, max_concurrency)

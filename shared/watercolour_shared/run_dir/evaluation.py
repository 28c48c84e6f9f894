"""`eval.json`: what `watercolour eval` measured, policy against policy (docs/run-directory.md, "Evaluations"; version 2,
revisions: docs/evaluation.md, "Revisions").

One model, one writer (`write_evaluation`) and one reader (`read_evaluation`): the eval command writes it,
its page and `check-run` read it. Paths inside it are relative to the eval folder that holds it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal, get_args

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from watercolour_shared.judge.verdict import Verdict

EVALUATION = "eval.json"
# An eval of a run's weights lands in the run directory under this folder by default.
EVAL_DIR = "eval"
EVALUATION_VERSION = 1
# Version 2 adds revisions (docs/evaluation.md, "Revisions"): `revisions`, `revision_gain` and each row's `turns` and
# `gain`. An eval without revisions is written as version 1, field for field as before (its new fields left out).
REVISIONS_VERSION = 2


def replies_file(folder: Path, label: str) -> Path:
    """Where one policy's replies are kept as they are written (a rerun into the folder writes only the missing)."""
    return Path(folder) / f"replies-{label}.jsonl"


def revisions_file(folder: Path, label: str) -> Path:
    """Where one policy's revisions are kept as they are written: each row its subject, sample, seed, `turn` (1 for
    the first revision) and `asked` (the SHA-256 of the conversation it answered, so a changed critique asks again)."""
    return Path(folder) / f"replies-{label}-revisions.jsonl"


def _unset_left_out(dumped: dict, defaults: dict) -> dict:
    """A dump without the fields at their defaults: what revisions add is absent from an eval without them."""
    for name, default in defaults.items():
        if dumped.get(name) == default:
            dumped.pop(name)
    return dumped


Outcome = Literal["win", "loss", "tie", "left-out"]  # for B, against A
# Which of a subject's paintings are judged against which (docs/evaluation.md, "Pairs"): A's sample k against B's
# sample k, or every A painting against every B painting of the subject.
Pairs = Literal["matched", "all"]
PAIRS: tuple[str, ...] = get_args(Pairs)
DEFAULT_PAIRS: Pairs = "matched"  # all pairs cost S times the judge calls, which cost money on the HF router


class Interval(BaseModel):
    """A mean and its 95% interval (a bootstrap over subjects); None where nothing was measured."""

    mean: float | None
    low: float | None
    high: float | None
    n: int


class SubjectSetInfo(BaseModel):
    name: str
    sha256: str
    count: int


class Painting(BaseModel):
    sample: int
    seed: int
    status: Literal["passed", "failed", "unavailable"]
    png: str | None = Field(None, description="relative path of the painting, when it rendered")
    js: str = Field(description="relative path of the sketch's code")
    violations: list[str] = []
    reward: dict[str, float | None] = Field({}, description="the env's terms: gate, length, judge, hps")
    hps_scorer: str | None = Field(None, description="the scorer's backend that gave `hps`: hpsv3, or heuristic")
    brush_calls: list[str] = Field([], description="the brush methods called, in the code's order")
    failure: str | None = Field(None, description="why no answer came (infrastructure), if none did")


class Turn(Painting):
    """One painting of a revision chain (an eval with `--revisions N`): `turn` 0 is the first reply, 1 to N each
    revision, painted in one episode of the environment after reading the critique of the painting before it. The
    reward's terms are the environment's on the last turn only (mid-episode it tells no score); a turn's `failure` is
    why its render was lost, and why an episode was dropped is its last painting's (the row's `a` or `b`)."""

    turn: int
    critique: str | None = Field(None, description="the environment's critique of the painting; the last is read by no policy")
    critique_source: str | None = Field(None, description="rules, or vlm (the environment's critic)")
    critique_version: str | None = Field(None, description="which critique text made it")


class Match(BaseModel):
    """One comparison: A's painting of a subject (`sample`) against B's (`b_sample`), judged in both orders. Under
    matched pairs B's is the same sample; under all pairs any of B's samples of that subject."""

    sample: int
    b_sample: int = Field(description="B's sample this was judged against; a file from before all pairs has none: A's")
    outcome: Outcome
    why: str
    a_first: Verdict | None = None  # A shown as painting A
    b_first: Verdict | None = None  # B shown as painting A

    @model_validator(mode="before")
    @classmethod
    def _matched_when_unsaid(cls, data):
        if isinstance(data, dict) and "b_sample" not in data:
            return {**data, "b_sample": data.get("sample")}
        return data


class SubjectRow(BaseModel):
    subject: str
    a: list[Painting]
    b: list[Painting]
    matches: list[Match]
    diversity: dict[str, float | None] = Field({}, description="per policy label: mean distance between its paintings")
    distinct_code: dict[str, float | None] = Field({}, description="per policy label: share of distinct brush-call sequences")
    # Version 2, an eval with revisions only: `a` and `b` are then each episode's last painting.
    turns: dict[str, list[list[Turn]]] = Field(
        {}, description="per policy label, per sample: every painting of its episode, first to last"
    )
    gain: dict[str, list[Match]] = Field(
        {},
        description="per policy label: each episode's last painting (as B) against its own first (as A), judged in "
        "both orders; `sample` and `b_sample` are the episode's sample",
    )

    @model_serializer(mode="wrap")
    def _revisions_when_set(self, handler: SerializerFunctionWrapHandler) -> dict:
        return _unset_left_out(handler(self), {"turns": {}, "gain": {}})


class PolicySummary(BaseModel):
    label: str
    source: str
    paintings: int
    unavailable: int
    gate_pass_rate: Interval
    violations: dict[str, int]
    length_chars: Interval
    length_term: Interval
    hps: Interval
    hps_scorer: str | None
    judge: Interval
    diversity: Interval = Field(description="mean perceptual distance between a subject's paintings")
    distinct_code: Interval = Field(description="share of a subject's samples whose brush-call sequence is its own")


class HeadToHead(BaseModel):
    """B against A: a win is 1, a tie 0.5, a loss 0; left-out comparisons (no answer) count in none. The counts are
    comparisons (`Match`es): one per sample under matched pairs, one per A sample and B sample under all pairs."""

    win_rate: Interval
    wins: int
    losses: int
    ties: int
    left_out: int
    tie_share: float | None
    better: bool = Field(description="the win rate's interval lies wholly above 50%")


class Evaluation(BaseModel):
    version: int = EVALUATION_VERSION
    created: str
    subjects: SubjectSetInfo
    samples: int
    seed: int
    pairs: Pairs = Field(DEFAULT_PAIRS, description="which paintings were compared; a file from before it: matched")
    judge: str
    training_judge: str | None = Field(None, description="the judge that trained B, when its run recorded one")
    same_judge: bool | None
    policies: dict[str, PolicySummary]  # "A" and "B"
    head_to_head: HeadToHead
    diversity_ratio: float | None = Field(description="B's diversity over A's")
    warnings: list[str] = []
    seconds: dict[str, float] = Field(
        {},
        description="seconds: each policy writing, the env rendering and scoring (wall time with a request out), "
        "the painting phase whole (both overlap), judging",
    )
    rows: list[SubjectRow]
    revisions: int = Field(0, description="version 2: paintings after the first in each episode, each after a critique")
    revision_gain: dict[str, HeadToHead] = Field(
        {}, description="version 2, per policy label: its last paintings' win rate against its own first paintings"
    )

    @model_validator(mode="after")
    def _versioned(self):
        if self.revisions and self.version < REVISIONS_VERSION:
            self.version = REVISIONS_VERSION
        return self

    @model_serializer(mode="wrap")
    def _revisions_when_set(self, handler: SerializerFunctionWrapHandler) -> dict:
        """An eval without revisions is written as it was before them (version 1)."""
        return _unset_left_out(handler(self), {"revisions": 0, "revision_gain": {}})


def write_evaluation(folder: Path, evaluation: Evaluation) -> Path:
    from watercolour_shared.run_dir.writer import atomic_write

    path = Path(folder) / EVALUATION
    atomic_write(path, json.dumps(evaluation.model_dump(mode="json"), indent=1).encode())
    return path


def read_evaluation(folder: Path) -> Evaluation | None:
    path = Path(folder) / EVALUATION
    return Evaluation.model_validate_json(path.read_text()) if path.exists() else None

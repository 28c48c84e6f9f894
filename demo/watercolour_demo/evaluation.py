"""The demo's last stage: `watercolour eval` of the final policy (B) against its warm start (A), on held-out
subjects, through the same environment GRPO trained against, with the offline judge.

The demo has no held-out judge: the offline judge both trained the policy and judges it here. Its evidence is
held-out subjects (none of them trained on) and the GRPO seeds `make bench-demo` repeats the run with.
The eval runs in a child process, as GRPO does: it loads both policies, and the demo's own process holds no
model.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from watercolour_demo.training import GrpoSettings, child_environment
from watercolour_harness.processes import end_process_tree, start
from watercolour_harness.stack import ROOT
from watercolour_shared.run_dir.evaluation import EVAL_DIR, Evaluation, read_evaluation
from watercolour_shared.subjects import DEMO_EVAL_SUBJECTS_FILE

WATERCOLOUR = [sys.executable, "-m", "watercolour_shared.cli"]  # the `watercolour` command of this interpreter
NO_HELD_OUT_JUDGE = "the offline judge trained the policy and judges it here: the demo has no held-out judge"


@dataclass(frozen=True)
class ClosingEval:
    """What the closing evaluation paints: `samples` paintings of each subject of `subjects`, per policy, into
    `folder` of the run directory."""

    subjects: Path = DEMO_EVAL_SUBJECTS_FILE
    samples: int = 3
    folder: str = EVAL_DIR


def eval_command(env_url: str, warm_start: Path, run_dir: Path, grpo: GrpoSettings, closing: ClosingEval) -> list[str]:
    """Both policies sample as GRPO sampled, each sample seeded: no sampling flag, so `watercolour eval` reads how the
    run sampled from its run.json (B is the run directory; A, the warm start, samples as B's run). All pairs: the
    offline judge is local and cheap, and judging every A painting of a subject against every B painting takes the luck of
    which samples met out of the win rate."""
    return [
        *WATERCOLOUR, "eval", "--a", str(warm_start), "--b", str(run_dir), "--env-url", env_url,
        "--out", str(run_dir / closing.folder),
        "--subjects", str(closing.subjects), "--samples", str(closing.samples), "--seed", str(grpo.seed),
        "--judge", "offline", "--pairs", "all", "--quiet",
        *(part for subject in grpo.subjects for part in ("--trained-on", subject)),
    ]  # fmt: skip


def evaluate(env_url: str, warm_start: Path, run_dir: Path, grpo: GrpoSettings, closing: ClosingEval, log: Path) -> Evaluation:
    process = start(eval_command(env_url, warm_start, run_dir, grpo, closing), log, child_environment(), ROOT)
    try:
        code = process.wait()
    finally:
        end_process_tree(process)
    evaluation = read_evaluation(run_dir / closing.folder)
    if code != 0 or evaluation is None:
        raise RuntimeError(f"the evaluation failed (exit {code}): see {log}")
    return evaluation


def numbers(evaluation: Evaluation, folder: str = EVAL_DIR) -> dict:
    """What the summary reports of the evaluation: its own fields, as eval.json spells them, and the demo's note."""
    match = evaluation.head_to_head.model_dump(include={"win_rate", "wins", "losses", "ties", "left_out", "better"})
    return {
        **evaluation.model_dump(include={"subjects", "samples", "pairs", "judge"}),
        "held_out_judge": False,
        "note": NO_HELD_OUT_JUDGE,
        **match,
        **evaluation.model_dump(include={"diversity_ratio", "warnings"}),
        "page": str(Path(folder) / "index.html"),
    }

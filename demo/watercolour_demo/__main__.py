"""`make demo`: the whole loop on this machine, nothing to sign up for and nothing to download.

    python -m watercolour_demo [--steps N] [--group-size G] [--model-size base] [--cache-dir DIR] [--run-dir DIR]

A tiny policy is trained here on generated sketches (cached after the first run), the local stack
starts (Redis if none answers, the heuristic scorer, the environment with the offline judge), and the
project's GRPO launch script trains the policy against it through real HTTP. Ctrl-C stops everything.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import sys
import time
from dataclasses import replace
from pathlib import Path

from watercolour_demo import summary
from watercolour_demo.evaluation import ClosingEval
from watercolour_demo.memory import PeakMemory
from watercolour_demo.progress import clock, say
from watercolour_demo.runner import run_loop
from watercolour_demo.training import GrpoSettings
from watercolour_demo.warm_start import DEFAULT_CACHE, WarmStartConfig
from watercolour_harness.tiny_policy import SIZES
from watercolour_shared.reward import DEFAULT_MIX, format_weights, parse_weights, preset
from watercolour_shared.run_dir.layout import RunLayout
from watercolour_shared.subjects import SubjectsError, load_subjects

DEFAULTS = WarmStartConfig()
JUDGE_LED = format_weights(preset(DEFAULT_MIX))  # the trainer's --weights text
DEFAULT_RUN_DIR = Path("runs") / "demo"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m watercolour_demo", description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=15, help="GRPO steps")
    p.add_argument("--group-size", type=int, default=8, help="rollouts per GRPO group (one group a step)")
    p.add_argument("--model-size", choices=sorted(SIZES), default=DEFAULTS.size, help="the tiny policy's size")
    p.add_argument("--warm-start-sketches", type=int, default=DEFAULTS.sketches, help="distinct sketches the warm start learns")
    p.add_argument("--warm-start-epochs", type=int, default=DEFAULTS.epochs, help="passes over them (8 sketches a step)")
    p.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE, help="where warm starts are kept")
    p.add_argument("--run-dir", type=Path, help=f"the run directory, which must be empty (default {DEFAULT_RUN_DIR}, replaced)")
    p.add_argument("--seed", type=int, default=0, help="GRPO's seed (sampling, the order of episodes)")
    p.add_argument("--max-completion-length", type=int, help="tokens a reply may take (default: fits the warm start's)")
    p.add_argument("--lr", type=float, default=4e-4, help="GRPO learning rate")
    # Below 1 the tiny policy's many unsure number tokens are sampled less wildly: fewer broken sketches, and
    # less noise in each step's gradient around the choices the reward tells apart.
    p.add_argument("--temperature", type=float, default=0.7, help="sampling temperature in GRPO (and in the look before it)")
    p.add_argument("--weights", type=_weights, default=JUDGE_LED, help=f"reward weights, every term named: {JUDGE_LED}")
    # Without it the tiny policy, pushed away from each broken sketch, soon writes nothing but broken sketches.
    p.add_argument("--beta", type=float, default=0.2, help="KL penalty that keeps GRPO near the warm start")
    p.add_argument("--scale-rewards", choices=("none", "group", "batch"), default="none", help="GRPO's advantage scaling")
    p.add_argument(
        "--multi-objective-aggregation",
        choices=("sum_then_normalize", "normalize_then_sum"),
        default=GrpoSettings.aggregation,
        help="TRL's: the mixed reward's advantage, or each term normalised in its group before weighting (GDPO)",
    )
    p.add_argument("--lora", action="store_true", help="train a LoRA on every linear layer instead of every weight")
    p.add_argument(
        "--eval-samples",
        type=int,
        default=ClosingEval.samples,
        help="paintings per held-out subject and policy in the closing evaluation (0: none)",
    )
    p.add_argument(
        "--eval-subjects",
        type=Path,
        default=ClosingEval.subjects,
        help=f"the closing evaluation's held-out subjects, one a line (default {ClosingEval.subjects.stem})",
    )
    p.add_argument("--browsers", type=int, default=2, help="Chromium instances rendering in parallel")
    p.add_argument("--env-url", help="train against this running environment instead of starting the local stack")
    p.add_argument("--report-to", default="trackio", help="trackio (local, under HF_HOME/trackio) or none")
    return p


def _weights(text: str) -> str:
    """Checked here, before minutes of warm start; the trainer is given the text as it is."""
    try:
        parse_weights(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def trackio_run_name(given_run_dir: Path | None) -> str:
    """The default folder is replaced by every run, so its runs are told apart by their start; a given --run-dir
    is named by whoever gave it (the container's /runs/demo-<time> already holds the time)."""
    if given_run_dir is None:
        return f"{DEFAULT_RUN_DIR.name}-{time.strftime('%Y%m%d-%H%M%S')}"
    return given_run_dir.name


def _interrupted(signum, frame):
    # Once: the clean-up that follows must not be cut short by a second Ctrl-C.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    signal.signal(signal.SIGINT, _interrupted)
    signal.signal(signal.SIGTERM, _interrupted)
    closing = ClosingEval(args.eval_subjects, args.eval_samples)
    try:  # before the previous run is replaced and minutes of warm start, not after
        evaluated = load_subjects(closing.subjects).held_out_from(list(DEFAULTS.subjects))
    except SubjectsError as error:
        say(f"--eval-subjects: {error}")
        return 2
    run_dir = args.run_dir or DEFAULT_RUN_DIR
    if run_dir.exists() and any(run_dir.iterdir()):
        if args.run_dir:
            say(f"{run_dir} is not empty: give a new --run-dir")
            return 2
        say(f"replacing the previous demo run in {run_dir} (--run-dir keeps a run elsewhere)")
        shutil.rmtree(run_dir)
    warm = replace(DEFAULTS, size=args.model_size, sketches=args.warm_start_sketches, epochs=args.warm_start_epochs)
    warm = warm.apart_from(evaluated)
    grpo = GrpoSettings(
        subjects=warm.subjects,
        steps=args.steps,
        group_size=args.group_size,
        max_completion_length=args.max_completion_length or 0,  # 0: the runner sizes it from the warm start
        lr=args.lr,
        temperature=args.temperature,
        weights=args.weights,
        scale_rewards=args.scale_rewards,
        aggregation=args.multi_objective_aggregation,
        beta=args.beta,
        lora=args.lora,
        seed=args.seed,
        report_to=args.report_to,
        run_name=trackio_run_name(args.run_dir),
    )
    started = time.monotonic()
    try:
        with PeakMemory() as memory:
            rows, context = run_loop(warm, grpo, args.cache_dir, run_dir, args.browsers, started, args.env_url, closing)
    except KeyboardInterrupt:
        say("\ninterrupted: every process the demo started has been stopped")
        return 130
    except RuntimeError as error:
        say(f"the demo failed: {error}")
        return 1
    context["wall_s"] = round(time.monotonic() - started, 1)
    context["peak_memory_gb"] = round(memory.peak_bytes / 2**30, 2)  # PSS of the demo and all it started
    say("\n" + summary.write(run_dir, summary.summarise(run_dir, rows, context)))
    say(f"trackio: `trackio show --project watercolour-rl` (run {grpo.run_name}); logs: {RunLayout(run_dir).logs}")
    say(f"done in {clock(context['wall_s'])}, peak memory {context['peak_memory_gb']:.1f} GB")
    return 1 if context["evaluation_failed"] else 0


if __name__ == "__main__":
    sys.exit(main())

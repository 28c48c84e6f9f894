"""--eval_steps: the checkpoints saved at eval steps become points of the run's held-out curve as the run goes.

Each is evaluated by `watercolour curve RUN_DIR --checkpoint checkpoint-N` (docs/run-directory.md, "The held-out
curve") in a separate, low-priority process against the run's environment; the training step only hands a name
over. One evaluation runs at a time. A checkpoint saved while one runs waits, and a newer one takes its place: the
newest checkpoint is the one worth the evaluator's time, a backlog would hold the trainer's exit for hours, and with
--save_total_limit an old one may be gone before its turn. A failed evaluation is logged and training goes on. At
the end of training the trainer waits for the one running and the one waiting, so the curve is complete when it
exits (and before the Hub push, which carries it).
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from transformers import TrainerCallback
from transformers.trainer_utils import PREFIX_CHECKPOINT_DIR

from watercolour_shared.run_dir.layout import RunLayout

log = logging.getLogger(__name__)

# `watercolour curve` through shared's dispatcher, in this very Python: studio adds the command where it is installed.
CURVE_PROGRAM = (sys.executable, "-m", "watercolour_shared.cli", "curve")
NICENESS = 10  # added to the trainer's: the evaluation gets the cores the training step leaves


@dataclass(frozen=True)
class CurveCommand:
    """The curve command for any checkpoint of one run; an option left None is the command's own default."""

    run_dir: Path
    env_url: str
    judge: str | None = None
    subjects: str | None = None
    samples: int | None = None
    program: tuple[str, ...] = CURVE_PROGRAM

    @classmethod
    def of_config(cls, config, run_dir: Path) -> CurveCommand:
        """The run's: its first environment, and the --eval_ options (WatercolourGRPOConfig)."""
        return cls(Path(run_dir).resolve(), config.env_url[0], config.eval_judge, config.eval_subjects, config.eval_samples)

    def argv(self, checkpoint: str) -> list[str]:
        options = {"--judge": self.judge, "--subjects": self.subjects, "--samples": self.samples}
        chosen = [word for flag, value in options.items() if value is not None for word in (flag, str(value))]
        return [*self.program, str(self.run_dir), "--checkpoint", checkpoint, "--env-url", self.env_url, *chosen]

    def missing(self) -> str | None:
        """Why the command cannot run here (studio is not installed beside the trainer), or None."""
        found = subprocess.run([*self.program, "--help"], capture_output=True, text=True, check=False)
        return None if found.returncode == 0 else (found.stderr.strip().splitlines() or ["no output"])[-1]


class HeldOutCurve(TrainerCallback):
    """Evaluates the checkpoint saved every `eval_steps` steps, and the last, in the background (main process only)."""

    def __init__(self, command: CurveCommand, eval_steps: int):
        self._command, self._eval_steps = command, eval_steps
        self._layout = RunLayout(command.run_dir)
        self._changed = threading.Condition()
        self._waiting: str | None = None
        self._running: str | None = None
        self._finishing = False
        self._worker = threading.Thread(target=self._work, name="held-out-curve", daemon=True)
        self._worker.start()

    def on_save(self, args, state, control, **kwargs):
        if state.global_step % self._eval_steps == 0 or state.global_step >= state.max_steps:
            self.submit(f"{PREFIX_CHECKPOINT_DIR}-{state.global_step}")

    def on_train_end(self, args, state, control, **kwargs):
        self.finish()

    def submit(self, checkpoint: str) -> None:
        """Hands the checkpoint to the worker and returns at once."""
        with self._changed:
            if self._waiting is not None:
                log.warning(
                    "held-out curve: %s is not evaluated, %s is newer (`watercolour curve` can add it)", self._waiting, checkpoint
                )
            self._waiting = checkpoint
            self._changed.notify()

    def finish(self) -> None:
        """Waits for the evaluation running and the one waiting."""
        with self._changed:
            pending = [name for name in (self._running, self._waiting) if name is not None]
            self._finishing = True
            self._changed.notify()
        if pending:
            log.info("held-out curve: waiting for the evaluation of %s before the trainer exits", " and ".join(pending))
        self._worker.join()

    def _work(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: self._waiting is not None or self._finishing)
                if self._waiting is None:
                    return
                self._running, self._waiting = self._waiting, None
            self._evaluate(self._running)
            with self._changed:
                self._running = None

    def _evaluate(self, checkpoint: str) -> None:
        if not (self._layout.checkpoints / checkpoint).is_dir():
            log.warning("held-out curve: %s was deleted before its turn (--save_total_limit?)", checkpoint)
            return
        self._layout.logs.mkdir(parents=True, exist_ok=True)
        output = self._layout.logs / f"curve-{checkpoint}.log"
        started = time.monotonic()
        try:
            with output.open("a") as out:
                process = subprocess.Popen(self._command.argv(checkpoint), stdin=subprocess.DEVNULL, stdout=out, stderr=out)
                # Set from here rather than in the child before exec: preexec_fn is unsafe in a threaded trainer.
                with contextlib.suppress(ProcessLookupError):
                    os.setpriority(os.PRIO_PROCESS, process.pid, os.getpriority(os.PRIO_PROCESS, 0) + NICENESS)
                code = process.wait()
        except OSError as error:
            log.error("held-out curve: the evaluation of %s could not start (%s); training goes on", checkpoint, error)
            return
        if code:
            log.error("held-out curve: the evaluation of %s failed (exit %d); training goes on; see %s", checkpoint, code, output)
        else:
            log.info("held-out curve: %s evaluated in %.0f s (%s)", checkpoint, time.monotonic() - started, output)

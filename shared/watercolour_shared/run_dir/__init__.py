"""The run directory (docs/run-directory.md): what the trainer writes and the gallery, `check-run`, the
demo and the Hub upload read. Its layout, its records, one writer and one reader live here and only here."""

from watercolour_shared.run_dir.layout import RECORDS, WeightsKind, weights_kind
from watercolour_shared.run_dir.reader import FilmRollout, FilmTurn, RunReader, run_sampling
from watercolour_shared.run_dir.records import RolloutRecord, RolloutTurn, RunPlan, StepMetrics, StepTimings
from watercolour_shared.run_dir.step_metrics import LOW_REWARD, all_equal, by_group, mean_reward, summarise
from watercolour_shared.run_dir.writer import RunWriter

__all__ = [
    "LOW_REWARD",
    "RECORDS",
    "FilmRollout",
    "FilmTurn",
    "RolloutRecord",
    "RolloutTurn",
    "RunPlan",
    "RunReader",
    "RunWriter",
    "StepMetrics",
    "StepTimings",
    "WeightsKind",
    "all_equal",
    "by_group",
    "mean_reward",
    "run_sampling",
    "summarise",
    "weights_kind",
]

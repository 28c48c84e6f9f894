"""All seven checks over one run directory."""

from __future__ import annotations

from dataclasses import dataclass

from huggingface_hub import HfApi

from watercolour_shared.run_dir import RunReader
from watercolour_shared.run_dir.layout import rollouts_repo
from watercolour_studio.checks.artifacts import artifacts
from watercolour_studio.checks.film_checks import groups_vary, paintings_vary, rendered, reward_moves
from watercolour_studio.checks.held_out import held_out_curve
from watercolour_studio.checks.report import Check
from watercolour_studio.checks.space import space_paused


@dataclass(frozen=True)
class CheckOptions:
    max_timeout_share: float = 0.05
    adapter_repo: str | None = None
    rollouts_repo: str | None = None
    space: str | None = None
    hub_token: str | None = None


def run_checks(run: RunReader, options: CheckOptions) -> list[Check]:
    rollouts, plan, metrics = run.all_rollouts(), run.plan(), run.metrics()
    hub = HfApi(token=options.hub_token)
    # The trainer pushes the weights to `push_to` and the rollouts to the dataset beside it.
    pushed = plan.push_to if plan else None
    adapter_repo = options.adapter_repo or pushed
    dataset_repo = options.rollouts_repo or (rollouts_repo(pushed) if pushed else None)
    return [
        rendered(rollouts, options.max_timeout_share),
        reward_moves(metrics, rollouts),
        groups_vary(rollouts),
        artifacts(run, rollouts, hub, adapter_repo, dataset_repo),
        paintings_vary(rollouts),
        space_paused(plan, hub, options.space),
        held_out_curve(run, metrics, rollouts),
    ]

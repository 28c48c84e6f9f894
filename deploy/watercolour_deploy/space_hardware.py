"""Space hardware as the deploy needs it: vCPUs (the env Space sizes its browser pool by them) and the
stages a Space is billed in. Prices are watercolour_shared.hardware's list prices, which the Hub's
docs (huggingface.co/docs/hub/spaces-gpus and jobs-pricing, as stored on 2026-11-30) confirm for the
flavours used here: cpu-upgrade $0.03/h, a100-large $2.50/h, h200 (Jobs) $5.00/h."""

from __future__ import annotations

from huggingface_hub import SpaceHardware, SpaceStage

from watercolour_shared.hardware import hourly_cost

# From the same pages; keyed by SpaceHardware so a flavour the Hub renamed fails at import.
_VCPUS = {
    SpaceHardware.CPU_BASIC: 2,
    SpaceHardware.CPU_UPGRADE: 8,
    SpaceHardware.T4_SMALL: 4,
    SpaceHardware.T4_MEDIUM: 8,
    SpaceHardware.L4X1: 8,
    SpaceHardware.L4X4: 48,
    SpaceHardware.L40SX1: 8,
    SpaceHardware.L40SX4: 48,
    SpaceHardware.L40SX8: 192,
    SpaceHardware.A10G_SMALL: 4,
    SpaceHardware.A10G_LARGE: 12,
    SpaceHardware.A10G_LARGEX2: 24,
    SpaceHardware.A10G_LARGEX4: 48,
    SpaceHardware.A100_LARGE: 12,
    SpaceHardware.A100X4: 48,
    SpaceHardware.A100X8: 96,
}
VCPUS: dict[str, int] = {hardware.value: count for hardware, count in _VCPUS.items()}
SPACE_HARDWARE = sorted(hardware.value for hardware in SpaceHardware)

# Billing stops while a Space builds, starts, sleeps, is paused or has failed; a running app that is
# rebuilding is still billed.
BILLED_STAGES = {stage.value for stage in (SpaceStage.RUNNING, SpaceStage.RUNNING_BUILDING, SpaceStage.RUNNING_APP_STARTING)}


def billed(stage: str | None) -> bool:
    return stage in BILLED_STAGES


def hourly_now(stage: str | None, hardware: str | None) -> float | None:
    """What a Space costs at this moment: 0 unless its stage is billed, None for an unpriced flavour."""
    return hourly_cost(hardware) if billed(stage) else 0.0


def price(hardware: str | None) -> str:
    cost = hourly_cost(hardware)
    return "price unknown" if cost is None else f"${cost:.2f}/h"

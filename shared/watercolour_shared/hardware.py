"""Hugging Face hardware the stack runs on, with list prices for cost estimates.

Prices are USD per hour as listed on huggingface.co/pricing (noted 2026-11); check there before
a long run. Names are the Spaces hardware names, which Jobs flavors share.
"""

from __future__ import annotations

HOURLY_USD: dict[str, float] = {
    "cpu-basic": 0.0,
    "cpu-upgrade": 0.03,
    "t4-small": 0.40,
    "t4-medium": 0.60,
    "l4x1": 0.80,
    "l40sx1": 1.80,
    "a10g-small": 1.00,
    "a10g-large": 1.50,
    "a100-large": 2.50,
    "h100": 4.50,
    "h200": 5.00,
}


def hourly_cost(hardware: str | None) -> float | None:
    """The list price, or None for hardware this table does not know (never a guess)."""
    return HOURLY_USD.get(hardware or "")

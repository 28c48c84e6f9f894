"""The references a painting faced, with the judge's verdicts and reasons, from its breakdown."""

from __future__ import annotations

from watercolour_shared.run_dir import FilmRollout


def faced(rollout: FilmRollout, pool_images: dict[str, str]) -> list[dict]:
    """One row per reference: its tier, the score, both orders' verdicts, and its image when the pool is known."""
    evaluation = rollout.record.evaluation
    judge = evaluation.reward.details.get("judge", {}) if evaluation else {}
    return [
        {
            "id": row.get("reference_id"),
            "tier": row.get("tier"),
            "score": row.get("score"),
            "orders_agree": row.get("orders_agree"),
            "as_a": _verdict(row.get("candidate_as_a"), "A"),
            "as_b": _verdict(row.get("candidate_as_b"), "B"),
            "image": pool_images.get(str(row.get("reference_id"))),
        }
        for row in judge.get("comparisons") or []
    ]


def _verdict(verdict: dict | None, candidate: str) -> dict | None:
    """Whether the painting won this order, and the judge's reason; None when the call failed."""
    if not verdict:
        return None
    return {"won": verdict.get("winner") == candidate, "reason": verdict.get("reason", "")}

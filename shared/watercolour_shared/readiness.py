"""The environment's GET /ready: can every model-scored term that carries weight answer now?

/health stays local and cheap: container checks call it every 15 s on each replica. /ready asks the
judge endpoint and the scorer, so it is for the moments that need the answer: the trainer's preflight
before step 1, and a person starting a stack. It answers 503 while a term the environment's default
weights need cannot answer, with the reasons; the body is the same either way, so a caller can judge
its own weights (the trainer sends its own with every episode).
"""

from __future__ import annotations

from pydantic import BaseModel

from watercolour_shared.reference_pool import ReferencePoolError, shortfall
from watercolour_shared.reward import MODEL_TERMS, MixWeights


class Readiness(BaseModel):
    ready: bool
    reasons: list[str]  # one line per term the default weights need that cannot answer
    default_weights: MixWeights
    terms_configured: dict[str, bool]
    terms_reachable: dict[str, bool]
    how_to_configure: dict[str, str] = {}  # for each term not configured: the settings that would configure it
    term_details: dict[str, dict] = {}  # what each configured term is, e.g. the judge's name and its pool
    limits: dict[str, float] = {}  # the seconds this environment runs with, and `client_wait_s` derived from them

    def references_problem(self, count: int) -> str | None:
        """Why the judge could not draw `count` references per rollout from its pool with its tier mix, if it could not.
        The trainer sets the count and the environment the tiers: this is where the two are held together."""
        judge = self.term_details.get("judge")
        if not judge or "tier_mix" not in judge:
            return None
        try:
            return shortfall(judge["tier_mix"], count, judge["tiers"])
        except ReferencePoolError as error:
            return str(error)

    @property
    def judge(self) -> str | None:
        """The judge this environment scores with (its model, or offline-judge), if it has one."""
        return self.term_details.get("judge", {}).get("judge")

    def unanswerable(self, weights: MixWeights) -> list[str]:
        """Why `weights` would get no reward now, one line per term they weigh that cannot answer."""
        return _unanswerable(weights, self.terms_configured, self.terms_reachable, self.how_to_configure)


def assess(
    default_weights: MixWeights,
    configured: dict[str, bool],
    reachable: dict[str, bool],
    how_to: dict[str, str],
    details: dict[str, dict] | None = None,
    limits: dict[str, float] | None = None,
) -> Readiness:
    """The environment's answer to GET /ready; `how_to` names, for each term not configured, what would configure it."""
    reasons = _unanswerable(default_weights, configured, reachable, how_to)
    return Readiness(
        ready=not reasons,
        reasons=reasons,
        default_weights=default_weights,
        terms_configured=configured,
        terms_reachable=reachable,
        how_to_configure=how_to,
        term_details=details or {},
        limits=limits or {},
    )


def _unanswerable(weights: MixWeights, configured: dict, reachable: dict, how_to: dict) -> list[str]:
    reasons = []
    for term in MODEL_TERMS:
        if not weights.active(term):
            continue
        carries = f"the {term} term carries weight {weights.weight(term):.2f}"
        if not configured.get(term):
            reasons.append(f"{carries} but is not configured" + (f": {how_to[term]}" if term in how_to else ""))
        elif not reachable.get(term):
            reasons.append(f"{carries} but its backend does not answer now")
    return reasons

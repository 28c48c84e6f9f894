"""Before step 1: every environment answers, and every term that carries weight is configured and reachable.

The recipe lost its 0.60 judge term silently whenever a token was missing. Here a run refuses to
start instead, naming the missing piece, unless the user says --allow-missing-terms.
"""

from __future__ import annotations

import logging

import httpx

from watercolour_shared.reward import MixWeights

log = logging.getLogger(__name__)

_HOW_TO_FIX = {
    "judge": "set HF_TOKEN for the router judge, WATERCOLOUR_JUDGE_BASE_URL for another endpoint, or WATERCOLOUR_JUDGE=offline",
    "hps": "set WATERCOLOUR_SCORER_URL to a running scorer (and WATERCOLOUR_SCORER_TOKEN for a private Space)",
}


class PreflightError(RuntimeError):
    """What would make the run's rewards wrong or missing, one line per problem."""


def check_environments(
    urls: list[str], weights: MixWeights, allow_missing_terms: bool, token: str | None = None, timeout_s: float = 15.0
) -> dict:
    """Each URL's /health answer; raises PreflightError naming every problem found."""
    healths, problems = {}, []
    headers = {"authorization": f"Bearer {token}"} if token else {}
    for url in urls:
        try:
            response = httpx.get(f"{url.rstrip('/')}/health", timeout=timeout_s, headers=headers)
            response.raise_for_status()
            healths[url] = response.json()
        except (httpx.HTTPError, ValueError) as error:
            problems.append(f"{url}: the environment does not answer /health ({error})")
            continue
        term_problems = _term_problems(url, healths[url], weights)
        if term_problems and allow_missing_terms:
            for problem in term_problems:
                log.warning("%s (continuing: --allow-missing-terms)", problem)
        else:
            problems.extend(term_problems)
    if problems:
        raise PreflightError("\n".join(problems))
    return healths


def _term_problems(url: str, health: dict, weights: MixWeights) -> list[str]:
    problems = []
    for term in ("judge", "hps"):
        weight = getattr(weights, term)
        if weight <= 0:
            continue
        if not health.get("terms_configured", {}).get(term):
            problems.append(f"{url}: the {term} term carries weight {weight:.2f} but is not configured: {_HOW_TO_FIX[term]}")
        elif not health.get("terms_reachable", {}).get(term):
            problems.append(f"{url}: the {term} term carries weight {weight:.2f} but its backend does not answer now")
    return problems

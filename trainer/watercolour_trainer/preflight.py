"""Before step 1: every environment answers /ready, and every term the run weighs is configured and reachable.

The recipe lost its 0.60 judge term silently whenever a token was missing. Here a run refuses to
start instead, naming the missing piece as the environment explains it, unless the user says
--allow_missing_terms.
"""

from __future__ import annotations

import asyncio
import logging

from pydantic import ValidationError

from watercolour_shared.env_client import EnvHttpClient
from watercolour_shared.readiness import Readiness
from watercolour_shared.reward import MixWeights
from watercolour_shared.service_client import ServiceRejected, ServiceUnavailable
from watercolour_shared.timeouts import CLIENT_TIMEOUT_S

log = logging.getLogger(__name__)


class PreflightError(RuntimeError):
    """What would make the run's rewards wrong or missing, one line per problem."""


def check_environments(
    urls: list[str],
    weights: MixWeights,
    allow_missing_terms: bool,
    token: str | None = None,
    timeout_s: float = 15.0,
    references: int | None = None,
) -> dict[str, Readiness]:
    """Each URL's /ready answer; raises PreflightError naming every problem found."""
    answers = asyncio.run(_ask_all(urls, token, timeout_s))
    found, problems = {}, []
    for url, answer in zip(urls, answers, strict=True):
        if isinstance(answer, str):
            problems.append(f"{url}: the environment does not answer /ready ({answer})")
            continue
        found[url] = answer
        term_problems = [f"{url}: {reason}" for reason in answer.unanswerable(weights)]
        if references and weights.active("judge") and (misfit := answer.references_problem(references)):
            problems.append(f"{url}: {misfit}")
        if term_problems and allow_missing_terms:
            for problem in term_problems:
                log.warning("%s (continuing: --allow_missing_terms)", problem)
        else:
            problems.extend(term_problems)
    if problems:
        raise PreflightError("\n".join(problems))
    return found


async def _ask_all(urls: list[str], token: str | None, timeout_s: float) -> list[Readiness | str]:
    return list(await asyncio.gather(*(_ask(url, token, timeout_s) for url in urls)))


async def _ask(url: str, token: str | None, timeout_s: float) -> Readiness | str:
    """The environment's readiness, or why it gave none."""
    try:
        async with EnvHttpClient(url, token, timeout_s=timeout_s, retries=0) as client:
            return await client.readiness()
    except (ServiceUnavailable, ServiceRejected) as error:
        return str(error)
    except ValidationError:
        return "its answer is not the environment's readiness report"


def client_wait(readiness: dict[str, Readiness]) -> float:
    """How long to wait for a group's rewards: the longest wait the environments report for their own limits."""
    reported = [answer.limits["client_wait_s"] for answer in readiness.values() if "client_wait_s" in answer.limits]
    return max(reported, default=CLIENT_TIMEOUT_S)

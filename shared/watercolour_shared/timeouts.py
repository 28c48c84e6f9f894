"""How long each part waits, in one place: the environment's own limits on a request, and the clients'
waits derived from them.

A render is answered within the queue wait plus the render deadline: past that it comes back
`unavailable`. A reward also waits on the judge and the scorer. Their per-call timeouts are here, but
their retries and a large group's many judge calls can take longer than one call's timeout, so the
clients' wait adds one such timeout and a margin, not a proof: a judge or scorer slower than that (a
struggling provider) can still outlast a client, whose rollouts then come back unavailable (dropped,
never a 0).
"""

from __future__ import annotations

# Twice the slowest honest sketch measured on 2 cores with every browser busy (27.9 s; docs/sandbox.md).
RENDER_DEADLINE_S = 60.0
QUEUE_TIMEOUT_S = 600.0  # waiting for a free browser, before the render is answered unavailable
SCORER_TIMEOUT_S = 120.0
JUDGE_TIMEOUT_S = 120.0

WIRE_MARGIN_S = 60.0


def client_wait_s(queue_s: float, render_s: float, scorer_s: float, judge_s: float) -> float:
    """A reward queued, drawn, then judged and scored side by side (one call each), and a margin for the wire.
    The environment reports this from the limits it runs with (/ready's `limits`); clients wait that long."""
    return queue_s + render_s + max(scorer_s, judge_s) + WIRE_MARGIN_S


# What a client waits when it has not asked the environment (the defaults' limits).
CLIENT_TIMEOUT_S = client_wait_s(QUEUE_TIMEOUT_S, RENDER_DEADLINE_S, SCORER_TIMEOUT_S, JUDGE_TIMEOUT_S)

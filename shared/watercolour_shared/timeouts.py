"""How long each part waits, in one place: the environment's own bounds on a request, and the clients'
waits derived from them, so a client never gives up on an answer the environment is still bound to send.

An environment answers a render within the queue wait plus the render deadline; a reward also waits on
the judge and the scorer, each bounded by its own client timeout. Whatever exceeds these bounds comes
back `unavailable`, never as a dropped connection.
"""

from __future__ import annotations

# Twice the slowest honest sketch measured on 2 cores with every browser busy (27.9 s; docs/sandbox.md).
RENDER_DEADLINE_S = 60.0
QUEUE_TIMEOUT_S = 600.0  # waiting for a free browser, before the render is answered unavailable
SCORER_TIMEOUT_S = 120.0
JUDGE_TIMEOUT_S = 120.0

# One reward, at worst: queued, drawn, then judged and scored (the judge and the scorer run side by side).
REWARD_BOUND_S = QUEUE_TIMEOUT_S + RENDER_DEADLINE_S + max(SCORER_TIMEOUT_S, JUDGE_TIMEOUT_S)
# Clients wait that long and a margin for the wire, so the environment's own answer always arrives first.
CLIENT_TIMEOUT_S = REWARD_BOUND_S + 60.0

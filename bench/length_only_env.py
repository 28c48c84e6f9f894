"""An environment that speaks the real HTTP contract (/health, /ready, /evaluate with shared's wire types) but
rewards length alone and renders nothing: for trainer measurements on GPU hosts without Chromium.

It is not the environment: no gate, no painting. Use it only where the trainer is what is measured.
    python bench/length_only_env.py --port 8000
"""

from __future__ import annotations

import argparse
import json
import threading

from watercolour_harness.scripted_http import LoopbackServer, QuietHandler
from watercolour_shared.length import length_score
from watercolour_shared.readiness import assess
from watercolour_shared.render_wire import EvaluateRequest, EvaluateResponse, Evaluation, RenderResult, RewardBreakdown
from watercolour_shared.reward import MODEL_TERMS, MixWeights

WEIGHTS = MixWeights(gate=0.0, length=1.0, judge=0.0, hps=0.0)
NO_TERMS = {term: False for term in MODEL_TERMS}
ANSWERS = {
    "/health": json.dumps({"status": "healthy", "terms_configured": NO_TERMS}).encode(),
    "/ready": assess(WEIGHTS, NO_TERMS, NO_TERMS, {}).model_dump_json().encode(),
}


def evaluate(request: EvaluateRequest) -> EvaluateResponse:
    results = []
    for reply in request.replies:
        length = length_score(reply)
        reward = RewardBreakdown(total=length, gate=1.0, length=length, weights=WEIGHTS)
        results.append(Evaluation(render=RenderResult(status="passed", code=reply), reward=reward))
    return EvaluateResponse(results=results)


class Handler(QuietHandler):
    def do_GET(self):  # noqa: N802 - the http.server API
        self.send_json(200 if self.path in ANSWERS else 404, ANSWERS.get(self.path, b'{"detail": "Not Found"}'))

    def do_POST(self):  # noqa: N802
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_json(200, evaluate(EvaluateRequest.model_validate_json(body)).model_dump_json())


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=8000)
    with LoopbackServer(Handler, parser.parse_args().port):
        threading.Event().wait()

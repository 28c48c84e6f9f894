"""A policy's paintings of every subject: replies written (or read back from an earlier try), then gated,
rendered and rewarded by the environment over its HTTP contract, and kept as files in the eval folder.

Replies are appended to `replies-LABEL.jsonl` as they are written, so a rerun writes only the missing ones;
the environment's Redis cache answers the renders and terms it already computed.
"""

from __future__ import annotations

import base64
import json
import re
import time
from collections.abc import Callable
from pathlib import Path

from watercolour_shared.env_client import EnvHttpClient
from watercolour_shared.render_wire import EpisodeOptions, Evaluation
from watercolour_shared.reward import MIX_TERMS, MixWeights
from watercolour_shared.run_dir.evaluation import Painting
from watercolour_shared.service_client import ServiceRejected, ServiceUnavailable
from watercolour_studio.eval.diversity import brush_sequence
from watercolour_studio.eval.policies import Policy

# Every term weighs something, so the environment computes each one; eval reports terms, never the total.
EVERY_TERM = MixWeights(**{term: 1.0 for term in MIX_TERMS})


def sample_seed(seed: int, subject_index: int, sample: int) -> int:
    return seed + 1000 * subject_index + sample


def subject_folder(subject_index: int, subject: str) -> str:
    return f"{subject_index:02d}-{re.sub(r'[^a-z0-9]+', '-', subject.lower()).strip('-')[:40]}"


class Replies:
    """One policy's replies, keyed by (subject, sample, seed), kept in a JSON-lines file as they come."""

    def __init__(self, path: Path):
        self.path = path
        self.known: dict[tuple[str, int, int], str] = {}
        self.seconds = 0.0  # spent waiting for the policy to write
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    row = json.loads(line)
                    self.known[(row["subject"], row["sample"], row["seed"])] = row["reply"]
                except (ValueError, KeyError, TypeError):
                    continue  # a line cut short by an interrupted run: that reply is written again

    async def get(self, policy: Policy, subject: str, sample: int, seed: int) -> str | None:
        key = (subject, sample, seed)
        if key not in self.known:
            started = time.perf_counter()
            reply = await policy.write(subject, sample, seed)
            self.seconds += time.perf_counter() - started
            if reply is None:
                return None
            self.known[key] = reply
            with self.path.open("a", encoding="utf-8") as out:
                out.write(json.dumps({"subject": subject, "sample": sample, "seed": seed, "reply": reply}) + "\n")
        return self.known[key]


async def write_subject(
    policy: Policy,
    replies: Replies,
    subject: str,
    subject_index: int,
    samples: int,
    seed: int,
    progress: Callable[[int], None],
) -> list[str | None]:
    """The policy's reply for each sample of the subject (None where it gave none)."""
    written = []
    for sample in range(samples):
        written.append(await replies.get(policy, subject, sample, sample_seed(seed, subject_index, sample)))
        progress(1)
    return written


async def render_subject(
    env: EnvHttpClient,
    written: list[str | None],
    subject: str,
    subject_index: int,
    seed: int,
    out: Path,
    label: str,
) -> list[Painting]:
    """The subject's replies gated, rendered and scored by the environment in one request, kept as files."""
    seeds = [sample_seed(seed, subject_index, sample) for sample in range(len(written))]
    folder = Path("paintings") / label / subject_folder(subject_index, subject)
    present = [reply for reply in written if reply is not None]
    evaluations: list[Evaluation | None] = [None] * len(present)
    failure = "the policy gave no answer"
    if present:
        options = EpisodeOptions(subject=subject, weights=EVERY_TERM)
        try:
            evaluations = await env.evaluate(present, seed=seed + subject_index, options=options, include_png=True)
        except (ServiceUnavailable, ServiceRejected) as error:
            failure = f"the environment gave no answer: {error}"
    answers = iter(zip(present, evaluations, strict=True))
    return [
        _painting(next(answers), sample, seeds[sample], out, folder)
        if reply is not None
        else _lost(sample, seeds[sample], failure)
        for sample, reply in enumerate(written)
    ]


def _painting(answer: tuple[str, Evaluation | None], sample: int, seed: int, out: Path, folder: Path) -> Painting:
    reply, evaluation = answer
    js = folder / f"sample-{sample}.js"
    (out / folder).mkdir(parents=True, exist_ok=True)
    code = evaluation.render.code if evaluation and evaluation.render.code else reply
    (out / js).write_text(code, encoding="utf-8", errors="replace")
    if evaluation is None:
        return Painting(sample=sample, seed=seed, status="unavailable", js=str(js), failure="the environment gave no answer")
    render, reward = evaluation.render, evaluation.reward
    png = None
    if render.png_base64:
        png = folder / f"sample-{sample}.png"
        (out / png).write_bytes(base64.b64decode(render.png_base64))
    terms = {"gate": reward.gate, "length": reward.length, "judge": reward.judge, "hps": reward.hps}
    return Painting(
        sample=sample,
        seed=seed,
        status=render.status,
        png=str(png) if png else None,
        js=str(js),
        violations=[violation.code for violation in render.violations],
        reward=terms,
        hps_scorer=reward.details.get("hps", {}).get("backend"),
        brush_calls=brush_sequence(code),
        failure=render.unavailable_reason if render.status == "unavailable" else None,
    )


def _lost(sample: int, seed: int, failure: str) -> Painting:
    return Painting(sample=sample, seed=seed, status="unavailable", js="", failure=failure)

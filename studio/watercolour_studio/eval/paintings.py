"""A policy's paintings of every subject: replies written (or read back from an earlier try), then gated,
rendered and rewarded by the environment over its HTTP contract, and kept as files in the eval folder.

Replies are appended to `replies-LABEL.jsonl` as they are written, so a rerun writes only the missing ones;
the environment's Redis cache answers the renders and terms it already computed.

What the model wrote is judged, whatever it is: a reply longer than the environment's wire takes
(MAX_REPLY_CHARS) is scored here as the gate scores any reply past its limit, failed as `oversized`, since the
environment would refuse the whole request. What the policy did not give (policies.NoAnswer), and a saved reply
that is not text, are left out and counted. A request the environment refuses leaves out only the replies it
refuses: the others are sent again one by one.
"""

from __future__ import annotations

import base64
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from pydantic import ValidationError

from watercolour_shared.env_client import EnvHttpClient
from watercolour_shared.render_wire import MAX_REPLY_CHARS, EpisodeOptions, Evaluation, RenderResult, RewardBreakdown
from watercolour_shared.reward import MIX_TERMS, MixWeights
from watercolour_shared.run_dir.evaluation import Painting
from watercolour_shared.service_client import ServiceRejected, ServiceUnavailable
from watercolour_shared.violations import ViolationCode
from watercolour_studio.eval.diversity import brush_sequence
from watercolour_studio.eval.policies import NoAnswer, Policy, Written

log = logging.getLogger(__name__)

# Every term weighs something, so the environment computes each one; eval reports terms, never the total.
EVERY_TERM = MixWeights(**{term: 1.0 for term in MIX_TERMS})
# The environment's terms for a reply that fails the gate before any code is read: no code, so no length either.
OVERSIZED_TERMS = {"gate": 0.0, "length": 0.0, "judge": None, "hps": None}
NO_ANSWER = "the policy gave no answer"


def sample_seed(seed: int, subject_index: int, sample: int) -> int:
    return seed + 1000 * subject_index + sample


def subject_folder(subject_index: int, subject: str) -> str:
    return f"{subject_index:02d}-{re.sub(r'[^a-z0-9]+', '-', subject.lower()).strip('-')[:40]}"


class Replies:
    """One policy's replies, kept in a JSON-lines file as they come, each keyed by its row's `key` fields: (subject,
    sample, seed) for first replies; revisions add their turn and the digest of the conversation they answered."""

    def __init__(self, path: Path, key: tuple[str, ...] = ("subject", "sample", "seed")):
        self.path = path
        self.key = key
        self.known: dict[tuple, str | NoAnswer] = {}
        self.seconds = 0.0  # spent waiting for the policy to write
        if path.exists():
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                try:
                    row = json.loads(line)
                    key, reply = tuple(row[name] for name in self.key), row["reply"]
                    hash(key)
                except (ValueError, KeyError, TypeError, RecursionError):
                    continue  # a line cut short by an interrupted run: that reply is written again
                # A saved reply that is not text (an earlier version saved what an endpoint sent) cannot be judged:
                # it is what the policy gave for that seed, so it is left out and counted, not asked for again.
                self.known[key] = reply if isinstance(reply, str) else NoAnswer("a saved reply that is not text")

    async def get(self, policy: Policy, subject: str, sample: int, seed: int) -> Written:
        return await self.kept({"subject": subject, "sample": sample, "seed": seed}, lambda: policy.write(subject, sample, seed))

    async def kept(self, fields: dict, ask: Callable[[], Awaitable[Written]]) -> Written:
        """The reply kept under `fields` (the row without its reply), else `ask`'s, kept when it is text."""
        key = tuple(fields[name] for name in self.key)
        if key not in self.known:
            started = time.perf_counter()
            reply = await ask()
            self.seconds += time.perf_counter() - started
            if not isinstance(reply, str):
                return reply  # no answer: not kept, so a rerun asks again
            self.known[key] = reply
            with self.path.open("a", encoding="utf-8") as out:
                out.write(json.dumps({**fields, "reply": reply}) + "\n")
        return self.known[key]


async def write_subject(
    policy: Policy,
    replies: Replies,
    subject: str,
    subject_index: int,
    samples: int,
    seed: int,
    progress: Callable[[int], None],
) -> list[Written]:
    """The policy's reply for each sample of the subject (NoAnswer or None where it gave none)."""
    written = []
    for sample in range(samples):
        written.append(await replies.get(policy, subject, sample, sample_seed(seed, subject_index, sample)))
        progress(1)
    return written


async def render_subject(
    env: EnvHttpClient,
    written: list[Written],
    subject: str,
    subject_index: int,
    seed: int,
    out: Path,
    label: str,
) -> list[Painting]:
    """The subject's replies gated, rendered and scored by the environment in one request, kept as files; a reply
    too long for the wire fails the gate here, and a sample with no reply is left out, saying why."""
    seeds = [sample_seed(seed, subject_index, sample) for sample in range(len(written))]
    folder = Path("paintings") / label / subject_folder(subject_index, subject)
    sent = [sample for sample, reply in enumerate(written) if isinstance(reply, str) and len(reply) <= MAX_REPLY_CHARS]
    answers: dict[int, Evaluation | str] = {}
    if sent:
        options = EpisodeOptions(subject=subject, weights=EVERY_TERM)
        answers = await _evaluate(env, {sample: written[sample] for sample in sent}, seed + subject_index, options)
    paintings = []
    for sample, reply in enumerate(written):
        if isinstance(reply, str) and sample in answers:
            paintings.append(_painting((reply, answers[sample]), sample, seeds[sample], out, folder))
        elif isinstance(reply, str):
            paintings.append(_oversized(reply, sample, seeds[sample], out, folder))
        else:
            paintings.append(lost(sample, seeds[sample], no_answer(reply)))
    return paintings


async def _evaluate(
    env: EnvHttpClient, replies: dict[int, str], seed: int, options: EpisodeOptions
) -> dict[int, Evaluation | str]:
    """Each sample's evaluation, or why the environment gave none. A request it refuses is sent again reply by
    reply, so a reply it refuses is left out alone, and the others are scored."""
    samples = list(replies)
    try:
        results = await env.evaluate(list(replies.values()), seed=seed, options=options, include_png=True)
    except (ServiceRejected, ValidationError) as error:
        if len(samples) == 1:
            return {samples[0]: f"the environment refused the reply: {_kind(error)}"}
        answers: dict[int, Evaluation | str] = {}
        for sample in samples:
            answers.update(await _evaluate(env, {sample: replies[sample]}, seed, options))
        return answers
    except ServiceUnavailable as error:
        log.warning("the environment gave no answer: %s", error)
        return dict.fromkeys(samples, f"the environment gave no answer: {_kind(error)}")
    return dict(zip(samples, results, strict=True))


def _kind(error: Exception) -> str:
    return getattr(error, "kind", None) or type(error).__name__


def _painting(answer: tuple[str, Evaluation | str], sample: int, seed: int, out: Path, folder: Path) -> Painting:
    """`answer`: the reply and the environment's evaluation of it, or why it gave none."""
    reply, evaluation = answer
    if isinstance(evaluation, str):
        js = _keep(out, folder, sample, reply)
        return Painting(sample=sample, seed=seed, status="unavailable", js=str(js), failure=evaluation)
    kept = painted(out, folder / f"sample-{sample}", reply, evaluation.render, evaluation.reward)
    return Painting(sample=sample, seed=seed, **kept)


def painted(out: Path, stem: Path, reply: str, render: RenderResult, reward: RewardBreakdown | None) -> dict:
    """A painting's fields, its code (and its PNG, when it rendered) kept as `stem`.js and .png in the eval folder.
    `reward`: the environment's terms, None where it told none (a painting before an episode's last)."""
    code = render.code if render.code else reply
    js = _write(out, stem.with_suffix(".js"), code)
    png = None
    if render.png_base64:
        png = stem.with_suffix(".png")
        (out / png).write_bytes(base64.b64decode(render.png_base64))
    terms = {"gate": reward.gate, "length": reward.length, "judge": reward.judge, "hps": reward.hps} if reward else {}
    return {
        "status": render.status,
        "png": str(png) if png else None,
        "js": str(js),
        "violations": [violation.code for violation in render.violations],
        "reward": terms,
        "hps_scorer": reward.details.get("hps", {}).get("backend") if reward else None,
        "brush_calls": brush_sequence(code),
        "failure": render.unavailable_reason if render.status == "unavailable" else None,
    }


def _oversized(reply: str, sample: int, seed: int, out: Path, folder: Path) -> Painting:
    """A reply longer than the environment's wire takes: failed as `oversized`, with the terms the environment gives
    any reply past its gate's limit (pipeline.py), since it would refuse the request rather than answer."""
    js = _keep(out, folder, sample, reply)
    return Painting(
        sample=sample,
        seed=seed,
        status="failed",
        js=str(js),
        violations=[ViolationCode.OVERSIZED.value],
        reward=dict(OVERSIZED_TERMS),
        brush_calls=brush_sequence(reply),
    )


def _keep(out: Path, folder: Path, sample: int, code: str) -> Path:
    return _write(out, folder / f"sample-{sample}.js", code)


def _write(out: Path, js: Path, code: str) -> Path:
    (out / js.parent).mkdir(parents=True, exist_ok=True)
    (out / js).write_text(code, encoding="utf-8", errors="replace")
    return js


def lost(sample: int, seed: int, failure: str, js: str = "") -> Painting:
    return Painting(sample=sample, seed=seed, status="unavailable", js=js, failure=failure)


def no_answer(reply: NoAnswer | None) -> str:
    """Why a painting is left out, when the policy gave no reply for it."""
    return f"{NO_ANSWER}: {reply.kind}" if isinstance(reply, NoAnswer) else NO_ANSWER

"""The order eval paints in: every policy's replies are written one at a time, while the environment renders
the subjects already written. Writing and rendering overlap, and the environment always has the next subject
queued behind the one it draws, so no browser waits for a policy or for the slowest sketch of a batch.

Replies are written one at a time, in a fixed order, because a local policy seeds torch's one global generator
for each sample: two at once would make each other's samples depend on timing. With revisions (revisions.py) a
subject's episodes hold its place in the environment while each revision waits its turn to be written: a reply is
still written alone, seeded as its own, so what it says does not hang on the order.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

from watercolour_shared.env_client import EnvHttpClient
from watercolour_shared.run_dir.evaluation import Painting, Turn, replies_file, revisions_file
from watercolour_studio.eval.paintings import Replies, render_subject, write_subject
from watercolour_studio.eval.policies import Policy
from watercolour_studio.eval.revisions import Episodes, EpisodeSettings

REVISION_KEY = ("subject", "sample", "seed", "turn", "asked")

# Subjects the environment holds at once. Two keep its browsers busy: while one subject's last sketch is drawn,
# the next one's wait in its queue. More would only lengthen the queue.
SUBJECTS_IN_FLIGHT = 2


class BusyClock:
    """Seconds during which at least one request was out: the environment's share of a painting phase."""

    def __init__(self):
        self.seconds = 0.0
        self._out = 0
        self._since = 0.0

    def __enter__(self) -> None:
        if self._out == 0:
            self._since = time.perf_counter()
        self._out += 1

    def __exit__(self, *_) -> None:
        self._out -= 1
        if self._out == 0:
            self.seconds += time.perf_counter() - self._since


async def paint_all(
    env: EnvHttpClient,
    policies: dict[str, Policy],
    subjects: tuple[str, ...],
    samples: int,
    seed: int,
    out: Path,
    progress: Callable[[int], None],
    episodes: EpisodeSettings | None = None,
) -> tuple[dict[str, list[list[Painting]]], dict[str, float], dict[str, list[list[list[Turn]]]]]:
    """Each policy's paintings, subject by subject, where the time went, and with revisions (`episodes`) every
    painting's turns: its last painting is the one in the paintings."""
    replies = {label: Replies(replies_file(out, label)) for label in policies}
    writing, rendering, environment = asyncio.Lock(), asyncio.Semaphore(SUBJECTS_IN_FLIGHT), BusyClock()
    revised = {
        label: Episodes(episodes, policy, Replies(revisions_file(out, label), REVISION_KEY), writing, out)
        for label, policy in policies.items()
        if episodes
    }
    turns: dict[str, dict[int, list[list[Turn]]]] = {label: {} for label in policies}

    async def paint(label: str, index: int, subject: str) -> list[Painting]:
        async with writing:
            written = await write_subject(policies[label], replies[label], subject, index, samples, seed, progress)
        async with rendering:
            with environment:
                if not episodes:
                    return await render_subject(env, written, subject, index, seed, out, label)
                last, turns[label][index] = await revised[label].paint_subject(written, subject, index, seed, label, progress)
                return last

    started = time.perf_counter()
    tasks = {label: [asyncio.ensure_future(paint(label, i, s)) for i, s in enumerate(subjects)] for label in policies}
    try:
        paintings = {label: list(await asyncio.gather(*jobs)) for label, jobs in tasks.items()}
    finally:  # a failure ends the other subjects' work too, before the environment's client is closed
        every = [job for jobs in tasks.values() for job in jobs]
        for job in every:
            job.cancel()
        await asyncio.gather(*every, return_exceptions=True)
    writing_s = {label: replies[label].seconds + (revised[label].kept.seconds if episodes else 0) for label in policies}
    seconds = {f"write {label}": round(writing_s[label], 1) for label in policies}
    seconds["render and score"] = round(environment.seconds, 1)
    seconds["paint, writing and rendering overlapped"] = round(time.perf_counter() - started, 1)
    return paintings, seconds, {label: [by_subject[i] for i in sorted(by_subject)] for label, by_subject in turns.items()}

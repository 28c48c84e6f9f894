"""Episodes with revisions, for `watercolour eval --revisions N` (docs/evaluation.md, "Revisions").

Each sample is one episode of the environment with N revisions (docs/revisions.md), played over its WebSocket: the
policy's first reply is painted and critiqued, the policy reads the critique as the next user turn of the same
conversation (watercolour_shared.prompts's `revision_messages`) and answers with a whole sketch again, N times. Every
turn paints with the subject's seed, the one A and B share, so a first painting is the painting an eval without
revisions makes. Each turn's code, painting and critique are kept; the last painting is the episode's, scored with the
terms the environment gives on its last turn.

An episode is dropped (its last painting `unavailable`, never scored, never a 0) when anything but the policy's
sketch fails at any turn: the policy gives no revision, the environment loses a render, a term or the session, or
its episode's reward is None. A sketch that fails the gate at a turn is a real painting that failed (0), and the
episode goes on: the critique says what failed.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from pydantic import ValidationError

from watercolour_shared.prompts import revision_messages
from watercolour_shared.render_wire import MAX_REPLY_CHARS, EpisodeOptions
from watercolour_shared.run_dir.evaluation import Painting, Turn
from watercolour_studio.eval.paintings import EVERY_TERM, Replies, lost, no_answer, painted, sample_seed, subject_folder
from watercolour_studio.eval.policies import Policy, Written

log = logging.getLogger(__name__)

ENV_NO_ANSWER = "the environment gave no answer"
NEEDS_CLIENT = (
    "--revisions plays each painting's episode over the environment's WebSocket, with its client: "
    "pip install 'watercolour-studio[revisions]' (watercolour-env: OpenEnv's client, no browser)"
)


class EpisodeSettings(NamedTuple):
    revisions: int  # paintings after the first, each after a critique
    env_url: str
    token: str | None = None


class EpisodesUnavailable(RuntimeError):
    """Episodes with revisions cannot be played at all: said in one line before any work."""


def _client_class():
    try:
        from watercolour_env.client import WatercolourEnv
    except ImportError:
        raise EpisodesUnavailable(NEEDS_CLIENT) from None
    return WatercolourEnv


def _client_errors() -> tuple[type[BaseException], ...]:
    """What the environment's client raises when an episode is lost to it: a refusal or an error frame (RuntimeError),
    a lost session, a socket or a timeout (OSError), a closed WebSocket, an answer that is not an observation."""
    from websockets.exceptions import WebSocketException

    return RuntimeError, OSError, ValueError, WebSocketException


async def check_episodes(settings: EpisodeSettings) -> None:
    """Begins one episode with the revisions: an environment that cannot play them is refused before any painting."""
    client = _client_class()(base_url=settings.env_url, headers=_headers(settings.token))
    try:
        async with client as env:
            await env.reset(seed=0, options=EpisodeOptions(revisions=settings.revisions).model_dump(mode="json"))
    except _client_errors() as error:
        why = f"{settings.env_url} plays no episode with {settings.revisions} revisions: {error}"
        raise EpisodesUnavailable(f"the environment at {why}") from None


def _headers(token: str | None) -> dict[str, str] | None:
    return {"Authorization": f"Bearer {token}"} if token else None


def _asked(messages: list[dict[str, str]]) -> str:
    return hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()[:16]


class Episodes:
    """One policy's episodes. Its revisions are written one at a time under the eval's `writing` lock (a local policy
    seeds torch's one generator for each) and kept in `kept` (replies-LABEL-revisions.jsonl), so a rerun asks only
    for the ones missing."""

    def __init__(self, settings: EpisodeSettings, policy: Policy, kept: Replies, writing: asyncio.Lock, out: Path):
        self.env_url, self.token, self.revisions = settings.env_url, settings.token, settings.revisions
        self.policy, self.kept, self.writing, self.out = policy, kept, writing, out

    async def paint_subject(
        self, written: list[Written], subject: str, subject_index: int, seed: int, label: str, progress: Callable[[int], None]
    ) -> tuple[list[Painting], list[list[Turn]]]:
        """Every sample's last painting and its turns; the samples' episodes run at once."""
        folder = Path("paintings") / label / subject_folder(subject_index, subject)
        shared = seed + subject_index  # the subject's render seed, as render_subject's
        episodes = [
            self._episode(reply, subject, folder, sample, (sample_seed(seed, subject_index, sample), shared), progress)
            for sample, reply in enumerate(written)
        ]
        done = await asyncio.gather(*episodes)
        return [painting for painting, _ in done], [turns for _, turns in done]

    async def _episode(
        self, reply: Written, subject: str, folder: Path, sample: int, seeds: tuple[int, int], progress
    ) -> tuple[Painting, list[Turn]]:
        """`seeds`: the sample's (the policy writes every turn with it) and the episode's (the subject's, shared by A
        and B, as an eval without revisions renders it)."""
        seed, episode_seed = seeds
        turns: list[Turn] = []
        asked = 0  # revisions asked of the policy: the progress bar counts the rest when the episode ends early
        try:
            if not isinstance(reply, str):
                return lost(sample, seed, no_answer(reply)), turns
            options = EpisodeOptions(subject=subject, weights=EVERY_TERM, revisions=self.revisions)
            said: list[tuple[str, str, int]] = []  # each earlier turn's reply, its critique, the revisions left
            async with _client_class()(base_url=self.env_url, headers=_headers(self.token)) as env:
                await env.reset(seed=episode_seed, options=options.model_dump(mode="json"))
                while True:
                    observation = await self._step(env, reply)
                    last = observation.done
                    stem = folder / f"sample-{sample}-turn-{len(turns)}"
                    kept = painted(self.out, stem, reply, observation.render, observation.breakdown)  # None but last
                    critique = {name: getattr(observation, name) for name in ("critique", "critique_source", "critique_version")}
                    turns.append(Turn(sample=sample, seed=seed, turn=len(turns), **kept, **critique))
                    if observation.status == "unavailable" or (last and observation.reward is None):
                        why = observation.unavailable_reason or "a painting was lost"
                        return lost(sample, seed, f"{ENV_NO_ANSWER}: {why}", turns[-1].js), turns
                    if last:
                        final = painted(self.out, folder / f"sample-{sample}", reply, observation.render, observation.breakdown)
                        return Painting(sample=sample, seed=seed, **final), turns
                    said.append((reply, observation.critique or "", observation.revisions_left))
                    reply = await self._revise(subject, sample, seed, len(turns), revision_messages(subject, said))
                    asked += 1
                    progress(1)
                    if not isinstance(reply, str):
                        return lost(sample, seed, f"{no_answer(reply)} (revision {len(turns)})", turns[-1].js), turns
        except _client_errors() as error:
            log.warning("an episode of %r, sample %d, was lost: %s", subject, sample, error)
            failure = f"{ENV_NO_ANSWER}: {type(error).__name__} at painting {len(turns) + 1}"
            return lost(sample, seed, failure, turns[-1].js if turns else ""), turns
        finally:
            progress(self.revisions - asked)

    async def _step(self, env, reply: str):
        """One painting of the episode. A reply past the wire's bound goes at the bound, still far past the gate's
        limit: a painting that failed (`oversized`), as WatercolourToolEnv sends it."""
        from watercolour_env.models import WatercolourAction

        try:
            action = WatercolourAction(reply=reply[:MAX_REPLY_CHARS], include_png=True)
        except ValidationError as error:
            raise ValueError(f"the environment refused the reply: {error.errors()[0]['msg']}") from None
        return (await env.step(action)).observation

    async def _revise(self, subject: str, sample: int, seed: int, turn: int, messages: list[dict[str, str]]) -> Written:
        fields = {"subject": subject, "sample": sample, "seed": seed, "turn": turn, "asked": _asked(messages)}
        async with self.writing:
            return await self.kept.kept(fields, lambda: self.policy.revise(messages, seed))

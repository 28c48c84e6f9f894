"""The painters `watercolour eval` compares: where a policy's replies come from.

- a local model folder or adapter folder, or a run directory (its saved weights), loaded as
  `watercolour paint` loads them (studio's `local` extra, watercolour-trainer, must be installed for these);
- an OpenAI-compatible endpoint serving the policy (vLLM, TGI): `URL#MODEL`;
- the paintings a run directory already holds for given steps: `RUN_DIR@STEP[,STEP...]` (no model at all;
  their subjects are the run's training subjects, so such an eval is not held out, and says so).

With revisions (`--revisions N`) a policy that writes (a model, an endpoint) also answers `revise`: the same
conversation, continued with its reply and the environment's critique of it (watercolour_shared.prompts's
`revision_messages`), asked with the sample's seed. A run's paintings cannot revise.

Every policy writes one reply per (subject, seed): the text the model wrote, which is judged whatever it is
(empty, or too long for the environment's wire: then it fails the gate), or NoAnswer (None where no reason is
known) when the policy gave none: no choices, a null content, content that is not text (a list, a number, an
object), an HTTP error. That painting is left out and counted, never scored, never a loss. Each sample has its
own fixed seed, so sample k of a subject is the same reply however many samples are asked for.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from pydantic import ValidationError

from watercolour_shared.prompts import subject_of
from watercolour_shared.run_dir import RunPlan, RunReader, run_sampling, weights_kind
from watercolour_shared.run_dir.layout import PLAN
from watercolour_shared.sampling import Sampling
from watercolour_shared.service_client import ServiceRejected, ServiceUnavailable
from watercolour_studio.pool.painter import PaintingModel

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class NoAnswer:
    """What a policy did not give: `kind` in a few words (`HTTP 500`, `null content`, `list content`), counted per
    policy; `detail` the rest, for the log."""

    kind: str
    detail: str = ""


Written = str | NoAnswer | None  # a reply, or why none came (None: the policy gave no reason)


class PolicyError(ValueError):
    """A policy that cannot paint at all (no such folder, no answering endpoint): one line, before any work."""


class Policy(Protocol):
    source: str
    training_judge: str | None  # the judge that trained it, when its run recorded one
    trained_on: list[str]  # the subjects its run trained on, when it recorded them

    async def check(self) -> None: ...
    async def write(self, subject: str, sample: int, seed: int) -> Written: ...
    async def revise(self, messages: list[dict[str, str]], seed: int) -> Written: ...
    async def close(self) -> None: ...


def policy_samplings(specs: dict[str, str], flags: dict) -> tuple[dict[str, Sampling], list[str]]:
    """How each policy samples, and notes for the user: a run directory (or its adapter/ or model/) as its run
    sampled (run.json); a policy that is no run's as the other policy's run (B's first), so both sample alike;
    else the defaults. A flag given (not None) wins over all of them."""
    runs = {label: run_sampling(spec) for label, spec in specs.items() if "@" not in spec and "://" not in spec}
    found = {label: run for label, run in runs.items() if run is not None}
    other = next((found[label] for label in sorted(found, reverse=True)), (Sampling(), None))  # B before A
    notes = [f"{label} ({specs[label]}): {note}" for label, (_, note) in found.items() if note]
    try:
        return {label: found.get(label, other)[0].overridden(**flags) for label in specs}, notes
    except ValidationError as error:
        raise PolicyError(f"sampling: {error.errors()[0]['loc'][0]} {error.errors()[0]['msg']}") from None


def open_policy(spec: str, sampling: Sampling, base_model: str | None = None, token: str | None = None) -> Policy:
    run, at, steps = spec.rpartition("@")[0], "@" in spec, spec.rpartition("@")[2]
    if at and (Path(run) / PLAN).is_file():
        return FilmPolicy.from_run(Path(run), steps)
    if spec.startswith(("http://", "https://")):
        url, _, model = spec.partition("#")
        if not model:
            raise PolicyError(f"{spec}: name the served model after '#', e.g. {url}#my-policy")
        return EndpointPolicy(url, model, sampling, token)
    return LocalPolicy.from_path(Path(spec), sampling, base_model)


class RevisingPainter(PaintingModel):
    async def revise(self, messages: list[dict[str, str]], seed: int) -> str:
        """The model's reply to a conversation continued with its painting's critique, sampled as `paint` samples."""
        return await self._complete({"model": self.model, "messages": messages, **self.sampling_fields, "seed": seed})


class EndpointPolicy:
    def __init__(self, url: str, model: str, sampling: Sampling, token: str | None):
        self.source = f"{url}#{model}"
        self.training_judge = None
        self.trained_on: list[str] = []
        self.painter = RevisingPainter(model, url, token, retries=2, sampling=sampling)
        self.sampling = sampling

    async def check(self) -> None:
        if not await self.painter.probe("/models", timeout_s=10.0):
            raise PolicyError(f"{self.source}: the endpoint does not answer GET /models")

    async def write(self, subject: str, sample: int, seed: int) -> Written:
        """The endpoint's text; NoAnswer for whatever it failed to give (chat_client.py says which kinds)."""
        return await self._answer(self.painter.paint(subject, seed), f"{subject!r}, sample {sample}")

    async def revise(self, messages: list[dict[str, str]], seed: int) -> Written:
        return await self._answer(self.painter.revise(messages, seed), f"a revision (seed {seed})")

    async def _answer(self, asked, what: str) -> Written:
        try:
            return await asked
        except (ServiceUnavailable, ServiceRejected) as error:
            log.warning("%s gave no answer for %s: %s", self.source, what, error)
            return NoAnswer(error.kind, str(error)[:300])

    async def close(self) -> None:
        await self.painter.close()


class LocalPolicy:
    """A model or adapter folder; generation runs in a worker thread, one sample at a time, seeded."""

    def __init__(self, model: str, adapter: str | None, sampling: Sampling, source: str, plan: RunPlan | None = None):
        self.model_name, self.adapter = model, adapter
        self.sampling = sampling
        self.source = source
        self.training_judge = plan.judge if plan else None
        self.trained_on = plan.subjects if plan else []
        self._loaded = None

    @classmethod
    def from_path(cls, path: Path, sampling: Sampling, base_model: str | None, plan: RunPlan | None = None) -> LocalPolicy:
        """`plan`: the run that trained these weights, when `path` is inside it (a checkpoint) rather than the run."""
        if not path.is_dir():
            raise PolicyError(f"{path}: no such model, adapter or run directory")
        if (path / PLAN).exists():  # a run directory: the weights it saved, what trained them and on what
            plan = RunReader(path).plan()
            saved = RunReader(path).saved_weights()
            if saved is None:
                raise PolicyError(f"{path}: the run saved no weights yet")
            base_model = base_model or (plan.model if plan else None)
            path = saved.folder
        kind = weights_kind({entry.name for entry in path.iterdir()})
        if kind == "model":
            return cls(str(path), None, sampling, str(path), plan)
        if kind == "adapter":
            base = base_model or json.loads((path / "adapter_config.json").read_text()).get("base_model_name_or_path")
            if not base:
                raise PolicyError(f"{path}: an adapter without a base model: pass --base-model")
            return cls(base, str(path), sampling, f"{base} + {path}", plan)
        raise PolicyError(f"{path}: holds neither a model (config.json + weights) nor an adapter")

    async def check(self) -> None:
        try:
            await asyncio.to_thread(self._load)
        except ImportError as error:
            raise PolicyError(
                f"{self.source}: local policies need studio's `local` extra, pip install 'watercolour-studio[local]' ({error})"
            ) from None
        except (OSError, ValueError) as error:
            raise PolicyError(f"{self.source}: cannot load: {str(error).splitlines()[0]}") from None

    async def write(self, subject: str, sample: int, seed: int) -> str | None:
        return await asyncio.to_thread(self._generate, subject, seed)

    async def revise(self, messages: list[dict[str, str]], seed: int) -> str:
        return await asyncio.to_thread(self._continue, messages, seed)

    async def close(self) -> None:
        self._loaded = None

    def _load(self):
        if self._loaded is None:
            from watercolour_trainer.paint_command import load_painter

            self._loaded = load_painter(self.model_name, self.adapter, bf16=False)
        return self._loaded

    def _generate(self, subject: str, seed: int) -> str:
        from watercolour_trainer.paint_command import sample_replies

        model, tokenizer = self._load()
        return sample_replies(model, tokenizer, subject, seed, 1, self.sampling)[0]

    def _continue(self, messages: list[dict[str, str]], seed: int) -> str:
        """One reply to the conversation, sampled as `sample_replies` samples a first one (its prompt, seeded torch)."""
        import torch

        model, tokenizer = self._load()
        prompt = tokenizer.apply_chat_template(
            messages, add_generation_prompt=True, enable_thinking=False, return_tensors="pt", return_dict=True
        )
        torch.manual_seed(seed)
        with torch.inference_mode():
            output = model.generate(**prompt, **self.sampling.generate_kwargs())
        return tokenizer.decode(output[0, prompt["input_ids"].shape[1] :], skip_special_tokens=True)


class FilmPolicy:
    """What a run already painted at some steps: sample k of a subject is the k-th of its rollouts there."""

    def __init__(self, source: str, replies: dict[str, list[str]], plan: RunPlan | None):
        self.source = source
        self.replies = replies
        self.training_judge = plan.judge if plan else None
        self.trained_on: list[str] = []  # its subjects are the film's own: nothing to hold out

    @classmethod
    def from_run(cls, run_dir: Path, steps_text: str) -> FilmPolicy:
        try:
            steps = [int(step) for step in steps_text.split(",")]
        except ValueError:
            raise PolicyError(f"{run_dir}@{steps_text}: steps are numbers, e.g. {run_dir}@1,2") from None
        run = RunReader(run_dir)
        missing = [step for step in steps if step not in run.steps()]
        if missing:
            raise PolicyError(f"{run_dir}: the film holds no step {', '.join(map(str, missing))}")
        replies: dict[str, list[str]] = {}
        for step in steps:
            for rollout in run.rollouts(step):
                subject = subject_of(rollout.record.prompt) or rollout.record.prompt
                replies.setdefault(subject, []).append(rollout.record.reply)
        return cls(f"{run_dir}@{steps_text}", replies, run.plan())

    @property
    def subjects(self) -> list[str]:
        return list(self.replies)

    async def check(self) -> None:
        return None

    async def write(self, subject: str, sample: int, seed: int) -> str | None:
        """None when the film holds fewer paintings of the subject: that comparison is left out."""
        painted = self.replies.get(subject, [])
        return painted[sample] if sample < len(painted) else None

    async def revise(self, messages: list[dict[str, str]], seed: int) -> str | None:
        raise PolicyError(f"{self.source}: a run's paintings cannot revise (--revisions needs a model or an endpoint)")

    async def close(self) -> None:
        return None

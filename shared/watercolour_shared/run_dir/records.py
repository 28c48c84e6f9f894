"""The records of a run directory: a rollout, a step's metrics and the run's plan, as the files hold them."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer, model_validator

from watercolour_shared.render_wire import Evaluation, RenderResult
from watercolour_shared.reward import MIX_TERMS, MixWeights, Term, TermScores, by_term, term_values
from watercolour_shared.run_dir.layout import WeightsKind
from watercolour_shared.sampling import Sampling

# The PNG travels in the evaluation (and in each turn's render) but is kept beside the record, as rollout-NN.png
# (and rollout-NN-turn-T.png).
WITHOUT_PNG = {"evaluation": {"render": {"png_base64"}}, "turns": {"__all__": {"render": {"png_base64"}}}}


class RolloutTurn(BaseModel):
    """One painting of a rollout with revisions (docs/run-directory.md, "Revisions"): turn 0 is the first, 1 to N each
    revision, painted in one episode of the environment after the policy read the critique of the turn before."""

    turn: int
    code: str  # what rollout-NN-turn-T.js holds: the code the environment extracted, else the sketch as sent
    render: RenderResult | None  # the environment's gate and render (its PNG is rollout-NN-turn-T.png); None: no answer
    critique: str | None  # the environment's critique of this painting; the last one is read by no policy
    critique_source: str | None = None  # rules, or vlm (the environment's critic)
    critique_version: str | None = None  # which critique text made it
    revisions_left: int | None = None  # paintings the episode still allowed after this one
    handed_in: bool = False  # painted for a rollout that stopped early: its last painting again, so the episode ends
    failure: str | None = None  # why this turn's painting was lost to our infrastructure (the rollout is then dropped)


class RolloutRecord(BaseModel):
    """rollout-NN.json. `evaluation` is the environment's answer for the reply; None when the call failed."""

    step: int
    index: int
    group: int  # the training episode: a GRPO group's rollouts share it
    prompt: str
    seed: int
    reward: float | None  # the mixed reward; None when the rollout was dropped
    dropped_reason: str | None
    reply: str
    evaluation: Evaluation | None
    # With revisions only (the launch script's --revisions N): every painting of the episode, first to last. The
    # record's `evaluation` is then the last painting's, its `reward` the episode's. Left out of a record without them.
    turns: list[RolloutTurn] = []

    @model_serializer(mode="wrap")
    def _turns_when_set(self, handler: SerializerFunctionWrapHandler) -> dict:
        """A rollout without revisions is written as it was before them."""
        dumped = handler(self)
        if not dumped.get("turns"):
            dumped.pop("turns", None)
        return dumped

    @classmethod
    def answered(cls, evaluation: Evaluation | None, failure: str | None = None, **fields) -> RolloutRecord:
        """The record of one reply (`fields`: step, index, group, prompt, seed, reply): the environment's mixed
        reward, or why there is none; `failure` says why the call to the environment failed."""
        reward = evaluation.reward.total if evaluation else None
        dropped = failure or (evaluation.reward.unavailable_reason if evaluation and reward is None else None)
        return cls(**fields, reward=reward, dropped_reason=dropped, evaluation=evaluation)

    @property
    def code(self) -> str:
        """What rollout-NN.js holds: the code the environment extracted, or the raw reply if none."""
        return (self.evaluation.render.code if self.evaluation else None) or self.reply

    @property
    def status(self) -> str:
        return self.evaluation.render.status if self.evaluation else "unavailable"

    @property
    def violations(self) -> list[str]:
        return [v.code.value for v in self.evaluation.render.violations] if self.evaluation else []

    def scores(self) -> dict[Term, float | None]:
        """Each term's score; all None when the environment gave no answer."""
        return by_term(self.evaluation.reward) if self.evaluation else dict.fromkeys(MIX_TERMS)

    def term_values(self) -> dict[Term, float] | None:
        """Each term's value before its weight (reward.term_values); None when the rollout was dropped."""
        if self.evaluation is None or self.reward is None:
            return None
        reward = self.evaluation.reward
        scores = TermScores(judge=reward.judge, hps=reward.hps)
        return term_values(reward.gate == 1.0, reward.length, scores, reward.weights)

    def as_json(self) -> dict:
        return self.model_dump(mode="json", exclude=WITHOUT_PNG)


class StepTimings(BaseModel):
    generation_s: float
    render_s: float
    scoring_s: float
    training_s: float
    compile_s: float = 0.0  # of generation_s: torch.compile building graphs (the first step; a later one recompiled)


class StepMetrics(BaseModel):
    """One line of metrics.jsonl. `components` holds the terms that carry weight, means over the scored rollouts."""

    step: int
    rollouts: int
    dropped: int
    reward_mean: float | None
    reward_std: float | None
    components: dict[Term, float]
    gate_pass_rate: float | None
    violations: dict[str, int]
    below_0_3: int
    groups: int
    all_equal_groups: int
    compiled_graphs: int = 0  # graphs torch.compile built in the step: after a process's first step, recompiles
    best: str | None  # the best painting's path in the run directory
    timings: StepTimings
    time: str  # when the step ended, ISO 8601 in UTC


class RunPlan(BaseModel):
    """run.json: the resolved plan (trainer/watercolour_trainer/plan.py builds it). What the readers use is typed;
    the rest (replicas, the estimate, `config`: the whole parsed WatercolourGRPOConfig) is kept as written."""

    model_config = ConfigDict(extra="allow")

    model: str
    subjects: list[str]
    weights: MixWeights
    lora: dict | None  # None: every weight trained
    push_to: str | None  # the Hub model repo; the rollouts go to PUSH_TO-rollouts
    judge: str | None = None  # the judge that trained the policy (`watercolour eval` says when it judges too)
    sampling: Sampling | None = None  # how its rollouts were sampled; None in a run written before it was recorded
    eval_steps: int | None = None  # its checkpoints go onto curve/curve.json every N steps and at the last; None: not

    @model_validator(mode="before")
    @classmethod
    def _one_subject(cls, data):
        """A run written before several subjects a step names its one `subject`."""
        if isinstance(data, dict) and "subject" in data and "subjects" not in data:
            data = {**data, "subjects": [data["subject"]]}
        return data

    def sampled(self) -> tuple[Sampling, str | None]:
        """How the run sampled, and a note when run.json does not say so itself: a run written before `sampling`
        was recorded is read from its `config` (TRL's fields), else it gets the defaults."""
        if self.sampling is not None:
            return self.sampling, None
        config = getattr(self, "config", None)
        if isinstance(config, dict):
            return Sampling.of_config(config), "run.json records no sampling: read from its config"
        return Sampling(), "run.json records no sampling: the defaults"

    @property
    def saves(self) -> WeightsKind:
        """What the run saves at its end: the adapter it trained, or the whole model when every weight trained."""
        return "adapter" if self.lora is not None else "model"

"""The launch script's configuration: TRL's GRPOConfig, plus this project's fields, parsed as TRL's scripts parse.

`WatercolourGRPOConfig` is a `GRPOConfig`: every TRL field keeps its name, help and meaning, so a TRL user reads a
recipe as theirs. The model and adapter fields take the names of TRL's `ModelConfig` (`model_name_or_path`,
`use_peft`, `lora_target_modules`, ...). The rest is this project's: the environments, the subjects, the reward mix.
`parse()` reads `--config FILE` (a recipe: trainer/recipes/*.yaml) through `TrlParser`, where a flag given on the
command line wins over the file. A recipe may `extends:` another (see recipe_file.py).
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import os
import sys
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import ClassVar, Literal

from pydantic import ValidationError
from transformers.trainer_utils import IntervalStrategy, SaveStrategy
from trl import GRPOConfig, TrlParser

from watercolour_shared.judge.factory import JUDGES
from watercolour_shared.render_wire import MAX_GROUP, EpisodeOptions
from watercolour_shared.retired_names import TRAINER_FLAGS, refuse_flags
from watercolour_shared.reward import DEFAULT_MIX, PRESETS, MixWeights, parse_weights, preset
from watercolour_shared.subjects import DEFAULT_SUBJECT, EVAL_SUBJECTS_FILE, SubjectsError, load_subjects, too_long
from watercolour_trainer.recipe_file import ENV, RecipeError, beneath, recipe_values
from watercolour_trainer.term_rewards import GDPO

DECODE_EXPERTS = ("batched_mm", "grouped_mm")
# The episode options a run with revisions sets (docs/revisions.md): their names and defaults are EpisodeOptions'.
REVISION_FIELDS = ("revisions", "revision_bonus")
NEEDS_ENV_CLIENT = (
    "--revisions plays each rollout's episode over the environment's WebSocket, with its client: "
    "pip install './trainer[revisions]' (watercolour-env: OpenEnv's client, no browser)"
)
# resume_from_checkpoint's value for "the last checkpoint in this run's directory".
LAST_CHECKPOINT = "last"


@dataclass
class WatercolourGRPOConfig(GRPOConfig):
    recipe: ClassVar[Path | None] = None  # not a field: parse() sets the --config file it read (TrlParser keeps `config`)

    # --- The policy and its adapter: TRL's ModelConfig names. ---
    model_name_or_path: str | None = field(default=None, metadata={"help": "The policy: a Hub model id or a local folder."})
    use_peft: bool = field(default=False, metadata={"help": "Train a LoRA adapter instead of every weight."})
    lora_r: int = field(default=16, metadata={"help": "LoRA rank."})
    lora_alpha: int = field(default=32, metadata={"help": "LoRA alpha."})
    lora_target_modules: list[str] | None = field(
        default=None,
        metadata={
            "help": "The modules LoRA wraps: `all-linear` (every linear layer of the decoder), or module names. A hand "
            "list of q/k/v/o reaches only Qwen3.5's 10 full-attention layers of 40, and is refused (see --allow_partial_lora)."
        },
    )
    allow_partial_lora: bool = field(default=False, metadata={"help": "Train even if some decoder layers get no LoRA."})
    # --- The environment and what it rewards. ---
    env_url: list[str] | None = field(
        default=None, metadata={"help": "The environments (one or more URLs); each group's rollouts are spread over them."}
    )
    subjects: list[str] = field(
        default_factory=lambda: [DEFAULT_SUBJECT], metadata={"help": "What to paint: one subject per group, in turn."}
    )
    prompts_per_step: int = field(default=1, metadata={"help": "Groups per step, each its own episode (subjects in turn)."})
    references: int = field(default=4, metadata={"help": "Judge references per rollout."})
    mix: str = field(default=DEFAULT_MIX, metadata={"help": "The reward mix preset.", "choices": sorted(PRESETS)})
    weights: str | None = field(
        default=None,
        metadata={
            "help": "Explicit weights, every term named: judge=0.6,hps=0.3,gate=0.05,length=0.05 (wins over --mix; a "
            "recipe may write them as a mapping by term). Either flag replaces all a recipe says of the reward."
        },
    )
    n_episodes: int = field(default=240, metadata={"help": "Prompts in the training set."})
    env_timeout: float | None = field(
        default=None, metadata={"help": "Seconds to wait for a group's rewards (default: what the environments' /ready report)."}
    )
    allow_missing_terms: bool = field(default=False, metadata={"help": "Start even if a weighted term is not reachable."})
    # --- Revisions (docs/revisions.md): the episode options of those names, their defaults the environment's. ---
    revisions: int = field(
        default=EpisodeOptions.model_fields["revisions"].default,
        metadata={
            "help": "Paintings after the first in each rollout, each after the environment's critique of the one before, "
            "through TRL's tool calling (the policy calls `paint`); the rollout's reward is its last painting's, and "
            "--max_completion_length must hold every turn. 0 (the default): one painting a rollout, as before."
        },
    )
    revision_bonus: float = field(
        default=EpisodeOptions.model_fields["revision_bonus"].default,
        metadata={
            "help": "alpha, SCoRe's improvement bonus: a rollout's reward is r_last + alpha x (r_last - r_first). Default "
            "0.0: the last painting's reward alone. Needs --revisions."
        },
    )
    # --- Generation on this trainer's own path (TRL's fields hold the rest). ---
    min_completion_length: int = field(default=0, metadata={"help": "Force at least N new tokens (for measurements)."})
    compiled_generation: bool | None = field(
        default=None,
        metadata={"help": "Generate with a static cache and torch.compile (default: true where CUDA is and vLLM is not)."},
    )
    merged_lora_generation: bool = field(
        default=True,
        metadata={"help": "Generate with the LoRA merged into the weights, restored exactly before training."},
    )
    decode_experts: str = field(
        default="grouped_mm",
        metadata={
            "help": "MoE experts while decoding: batched_mm (copies each token's expert weights) or grouped_mm (reads "
            "the active experts in place).",
            "choices": DECODE_EXPERTS,
        },
    )
    fused_moe_decode: bool = field(
        default=False,
        metadata={
            "help": "Decode the MoE experts through this project's Triton kernels (route, gate/up, down and the weighted "
            "sum in three launches; watercolour_trainer/moe_decode.py). The prefill and training keep --decode_experts."
        },
    )
    compile_cache: str | None = field(
        default=None, metadata={"help": "A folder kept between runs for torch.compile's caches (default: inductor's /tmp)."}
    )
    # --- The run. ---
    dry_run: bool = field(default=False, metadata={"help": "Check every service, print the plan and its cost, and exit."})
    flavor: str = field(default="h200", metadata={"help": "The hardware the trainer runs on (for the cost estimate)."})
    scorer_hardware: str = field(
        default="a100-large", metadata={"help": "The scoring Space's hardware, kept up during the run (for the cost estimate)."}
    )
    step_seconds: float | None = field(
        default=None, metadata={"help": "Expected seconds per step (default: the measured H200 pace, scaled)."}
    )
    # --- The held-out curve as the run goes (held_out_curve.py); each unset option is `watercolour curve`'s own. ---
    eval_judge: str | None = field(
        default=None,
        metadata={"help": "The judge of --eval_steps' evaluations (default: watercolour eval's).", "choices": JUDGES},
    )
    eval_subjects: str | None = field(
        default=None, metadata={"help": "Their held-out subjects, one per line (default: watercolour eval's set)."}
    )
    eval_samples: int | None = field(
        default=None, metadata={"help": "Their paintings per subject and policy (default: watercolour eval's)."}
    )
    # --- TRL's fields whose default differs here. ---
    output_dir: str | None = field(
        default=None, metadata={"help": "The run directory (default: runs/RUN_NAME); checkpoints go to its checkpoints/."}
    )
    run_name: str | None = field(default="watercolour-grpo", metadata={"help": "Names the run (trackio, folders)."})
    report_to: None | str | list[str] = field(default="trackio", metadata={"help": "trackio, or none."})
    project: str = field(default="watercolour-rl", metadata={"help": "The trackio project."})
    trackio_static_space_id: str | None | Literal[False] = field(
        default=False, metadata={"help": "No trackio Space is made for the run."}
    )
    logging_steps: float = field(default=1, metadata={"help": "Log every N steps."})
    save_steps: float = field(
        default=10, metadata={"help": "Checkpoint every N steps (a step of the recipe's is minutes: TRL's 500 would be none)."}
    )
    gradient_accumulation_steps: int | None = field(
        default=None,
        metadata={"help": "Default: a step's rollouts (prompts_per_step x num_generations) per micro-batch and process."},
    )
    resume_from_checkpoint: str | None = field(
        default=None,
        metadata={"help": f"A checkpoint to continue from, or `{LAST_CHECKPOINT}`: the last one in the run directory."},
    )
    # --- TRL's field with this project's meaning: TRL's own evaluation loop has no dataset here and stays off. ---
    eval_steps: float | None = field(
        default=None,
        metadata={
            "help": "Every N optimisation steps (and at the last), evaluate the checkpoint just saved onto the run's "
            "held-out curve (curve/curve.json), with `watercolour curve` in a low-priority process beside training; "
            "a multiple of --save_steps. Default: off (evaluating a policy beside a GPU run needs its own device)."
        },
    )

    def __post_init__(self):
        if not self.env_url:
            raise ValueError("--env_url is required: the environment(s) that reward the rollouts")
        if not self.model_name_or_path:
            raise ValueError("--model_name_or_path is required: a Hub model id or a local folder")
        if self.push_to_hub and not self.hub_model_id:
            raise ValueError("--push_to_hub needs --hub_model_id USER/REPO")
        if self.reward_weights is not None:  # one home for weights: TRL's would weigh our functions a second time
            raise ValueError("--reward_weights is not read here: --weights or --mix weigh the reward's terms")
        if isinstance(self.lora_target_modules, str):  # a recipe may write one name without a list
            self.lora_target_modules = [self.lora_target_modules]
        if self.use_peft and not self.lora_target_modules:
            raise ValueError("--use_peft needs --lora_target_modules (all-linear, or module names: say which layers train)")
        if self.lora_target_modules and "all-linear" in self.lora_target_modules and len(self.lora_target_modules) > 1:
            raise ValueError("--lora_target_modules: all-linear and module names exclude each other")
        self.mix_weights()  # a malformed --weights is refused here, not at the first step
        if long := too_long(self.subjects):  # the wire refuses them: every group of one would be dropped, step after step
            raise ValueError(f"--subjects: {long}")
        self._check_held_out_curve()
        self._check_revisions()
        if (self.num_generations or 0) > MAX_GROUP:  # a group is one /evaluate call: found here, not as the first step's 422
            raise ValueError(
                f"--num_generations {self.num_generations}: the environment scores at most {MAX_GROUP} replies a group"
            )
        self.output_dir = self.output_dir or str(Path("runs") / self.run_name)
        self.gradient_accumulation_steps = accumulation_steps(self, processes())
        if self.compiled_generation is None:
            import torch

            # Not with revisions: the static cache is sized for one turn's prompt (compiled_generation.enable).
            self.compiled_generation = torch.cuda.is_available() and not self.use_vllm and not self.revisions
        if self.compiled_generation:  # a static cache is what makes generation compilable
            self.cache_implementation = "static"
        if self.min_completion_length:
            self.generation_kwargs = {**(self.generation_kwargs or {}), "min_new_tokens": self.min_completion_length}
        self.chat_template_kwargs = {"enable_thinking": False, **(self.chat_template_kwargs or {})}
        super().__post_init__()

    def _check_held_out_curve(self) -> None:
        """--eval_steps evaluates saved checkpoints: it must fall on a save, and what every evaluation needs is
        checked once here rather than failing at each checkpoint."""
        if IntervalStrategy(self.eval_strategy) != IntervalStrategy.NO:
            raise ValueError(
                f"--eval_strategy {self.eval_strategy}: TRL's own evaluation loop has no evaluation dataset in this "
                "trainer; --eval_steps N alone evaluates saved checkpoints on held-out subjects"
            )
        if not self.eval_steps:  # TRL's "unset" is None or 0: off
            self.eval_steps = None
            return
        if self.eval_steps < 1 or self.eval_steps != int(self.eval_steps):
            raise ValueError(f"--eval_steps {self.eval_steps}: a whole number of steps (a ratio of the run is not taken here)")
        self.eval_steps = int(self.eval_steps)
        saves = self.save_steps if SaveStrategy(self.save_strategy) == SaveStrategy.STEPS else None
        if not saves or saves < 1 or saves != int(saves) or self.eval_steps % int(saves):
            raise ValueError(
                f"--eval_steps {self.eval_steps} does not fall on a saved checkpoint: it must be a multiple of "
                f"--save_steps (now {self.save_steps}, --save_strategy {self.save_strategy})"
            )
        if self.eval_samples is not None and self.eval_samples < 1:
            raise ValueError(f"--eval_samples {self.eval_samples}: at least 1")
        try:  # the curve command refuses a set that is not held out from the run's subjects, at every checkpoint
            load_subjects(Path(self.eval_subjects or EVAL_SUBJECTS_FILE)).held_out_from(self.subjects)
        except SubjectsError as error:
            raise ValueError(f"--eval_subjects: {error}") from None

    def _check_revisions(self) -> None:
        """The episode options' own bounds, and what a run with revisions cannot do, said before anything loads."""
        try:
            EpisodeOptions(revisions=self.revisions, revision_bonus=self.revision_bonus)
        except ValidationError as error:
            problem = error.errors()[0]
            raise ValueError(f"--{problem['loc'][0]} {getattr(self, problem['loc'][0])}: {problem['msg']}") from None
        if not self.revisions:
            if self.revision_bonus:
                raise ValueError(f"--revision_bonus {self.revision_bonus} needs --revisions: one painting has no improvement")
            return
        if self.multi_objective_aggregation == GDPO:  # an episode's reward is one number: its terms are the last painting's
            raise ValueError(f"--revisions: --multi_objective_aggregation {GDPO} needs each term's reward; a rollout with "
                             "revisions is rewarded as one number (its last painting's, with the bonus)")  # fmt: skip
        if self.compiled_generation:
            raise ValueError("--revisions: --compiled_generation sizes its static cache for one turn's prompt, and a "
                             "revision's prompt holds the turns before it; leave it unset")  # fmt: skip
        if importlib.util.find_spec("watercolour_env") is None:
            raise ValueError(NEEDS_ENV_CLIENT)

    def mix_weights(self) -> MixWeights:
        """The weights every episode of the run asks the environment for."""
        return parse_weights(self.weights) if self.weights else preset(self.mix)

    @property
    def run_dir(self) -> Path:
        return Path(self.output_dir)

    @property
    def lora_targets(self) -> str | list[str] | None:
        """PEFT's target_modules: the string `all-linear`, or the module names."""
        if not self.use_peft:
            return None
        return "all-linear" if self.lora_target_modules == ["all-linear"] else self.lora_target_modules

    def for_trainer(self, checkpoints: Path) -> WatercolourGRPOConfig:
        """What GRPOTrainer gets: checkpoints in the run directory's own folder, and no pushes of its own (the
        launch script pushes the adapter and the rollouts once, at the end)."""
        args = copy.copy(self)
        args.output_dir, args.push_to_hub = str(checkpoints), False
        return args


def field_names() -> set[str]:
    return {item.name for item in fields(WatercolourGRPOConfig)}


def processes() -> int:
    """How many training processes share a step: `accelerate launch` says so in WORLD_SIZE."""
    return int(os.environ.get("WORLD_SIZE", "1"))


def accumulation_steps(config: WatercolourGRPOConfig, processes: int) -> int:
    """TRL generates batch x accumulation x processes rollouts a step: that must be the step's groups x group size."""
    rollouts = config.prompts_per_step * config.num_generations
    per_micro_batch = config.per_device_train_batch_size * processes
    if config.gradient_accumulation_steps is None:
        if rollouts % per_micro_batch:
            raise ValueError(f"a step's {rollouts} rollouts do not split into micro-batches of {per_micro_batch}")
        return rollouts // per_micro_batch
    if config.gradient_accumulation_steps * per_micro_batch != rollouts:
        raise ValueError(
            f"--gradient_accumulation_steps {config.gradient_accumulation_steps} x batch {config.per_device_train_batch_size} "
            f"x {processes} process(es) is not a step's {rollouts} rollouts ({config.prompts_per_step} prompts x "
            f"{config.num_generations} generations); leave it out to have it computed"
        )
    return config.gradient_accumulation_steps


def parser(**options) -> TrlParser:
    # No abbreviations: `--learning_rat` must be refused by name, not read as --learning_rate.
    p = TrlParser(
        (WatercolourGRPOConfig,),
        prog="watercolour_grpo.py",
        description="GRPO on a watercolour-painting code LLM. --config FILE reads a recipe (trainer/recipes/*.yaml): "
        "its keys are the fields below; a flag given on the command line wins over it.",
        allow_abbrev=False,
        **options,
    )
    refuse_flags(p, TRAINER_FLAGS)
    return p


def parse(argv: list[str] | None = None) -> WatercolourGRPOConfig:
    """The recipe named by --config (if any), then the command line, which wins; checked, never changed after."""
    p = parser()
    argv, recipe = _config_named(_lists_gathered(list(sys.argv[1:] if argv is None else argv), p))
    if recipe is not None:
        given = {word[2:].split("=", 1)[0].replace("-", "_") for word in argv if word.startswith("--")}
        try:
            values = beneath(_read_as_flags(recipe_values(recipe, field_names())), given)
        except (OSError, RecipeError) as error:
            p.error(f"--config {recipe}: {error}")
        for name, value in values.pop(ENV, {}).items():  # TRL's `env:` section sets environment variables
            os.environ[name] = str(value)
        p.set_defaults_with_config(**values)
    try:
        (config,) = p.parse_args_into_dataclasses(argv)
    except ValueError as error:
        p.error(str(error))
    config.recipe = recipe
    return config


def _read_as_flags(values: dict) -> dict:
    """A recipe's values read by the parser itself, each as its words on the command line: argparse applies neither a
    field's type nor its choices to a default, so `subjects: a rose` would stay a string and `mix: nonsense` pass."""
    strict = parser(exit_on_error=False)
    read = {}
    for name, value in values.items():
        if isinstance(value, dict):  # TRL's env section, or a field that takes a mapping: taken as it is
            read[name] = value
            continue
        words = [f"--{name}", *map(str, value)] if isinstance(value, list) else [f"--{name}={value}"]
        try:
            read[name] = getattr(strict.parse_known_args(words)[0], name)
        except argparse.ArgumentError as error:
            raise RecipeError(f"{name}: {error.message}") from None
        if isinstance(value, list) and not isinstance(read[name], list):  # a list for a flag of one value (report_to:
            read[name] = value  # [trackio, wandb]): the field takes it as it is, as TRL's own --config gives it
    return read


def _lists_gathered(argv: list[str], p: TrlParser) -> list[str]:
    """Each list field once, with the values of every time it was given (`--env_url a --env_url b`), where its first
    spelling stood: argparse alone would keep the last."""
    lists = {flag: action.dest for action in p._actions if action.nargs == "+" for flag in action.option_strings}
    gathered: dict[str, list[str]] = {}
    out: list[str] = []
    index = 0
    while index < len(argv):
        flag = argv[index].split("=", 1)[0]
        if flag not in lists:
            out.append(argv[index])
            index += 1
            continue
        dest = lists[flag]
        values = argv[index].split("=", 1)[1:]
        index += 1
        if not values:
            while index < len(argv) and not argv[index].startswith("--"):
                values.append(argv[index])
                index += 1
        if dest not in gathered:
            gathered[dest] = []
            out += [flag, gathered[dest]]  # filled in place as later occurrences come
        gathered[dest] += values
    return [word for part in out for word in (part if isinstance(part, list) else [part])]


def _config_named(argv: list[str]) -> tuple[list[str], Path | None]:
    """--config FILE taken out of the arguments, as TrlParser does, so its values can become the defaults."""
    for index, arg in enumerate(argv):
        if arg == "--config" and index + 1 < len(argv):
            return argv[:index] + argv[index + 2 :], Path(argv[index + 1])
        if arg.startswith("--config="):
            return argv[:index] + argv[index + 1 :], Path(arg.split("=", 1)[1])
    return argv, None

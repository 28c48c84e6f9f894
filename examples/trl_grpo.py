"""GRPO in your own TRL script, with a running watercolour environment as the reward.

Your model, TRL's GRPOTrainer, and our environment through TRL's `environment_factory`: the model paints by
calling the environment's `paint` tool, and the environment's reward (gate, length, judge, HPSv3, as the server
is configured) is the rollout's reward. The model needs a chat template that can call tools (Qwen3's can).

    docker compose up -d env            # or any running environment, e.g. a Space
    pip install ./shared ./services/env trl
    python examples/trl_grpo.py --model_name_or_path Qwen/Qwen3-0.6B --env_url http://localhost:8000 \\
        --output_dir runs/my-grpo --max_steps 50

Each dataset row is one subject and one render seed (`--seed` onwards): the rollouts of a GRPO group share their
row, so they paint the same subject with the same seed, and the group's rewards differ by the painting alone.
The model may paint more than once; the last painting counts, and the tool's answer tells the gate's verdict,
never the reward (services/env/watercolour_env/tool_env.py gives the rules).

With revisions (docs/revisions.md) the model paints, reads a critique of its painting and paints again, `--revisions`
times; a vision-language policy also sees the painting, 256 x 256 (`--images`: TRL loads the model's processor and
hands it the picture: 64 image tokens for Qwen3.5, the critique about 150 more). The episode's reward is its last
painting's. `--max_completion_length` must hold every turn; TRL drops a tool answer that would overflow it:

    python examples/trl_grpo.py --model_name_or_path Qwen/Qwen3.5-2B --env_url http://localhost:8000 \\
        --output_dir runs/my-revisions --revisions 1 --images --max_completion_length 4096

Every GRPOConfig field is a flag too (`--learning_rate`, `--num_generations`, ...), read by TRL's own parser;
`--config my.yaml` reads them from a file, as TRL's scripts do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer, TrlParser

from watercolour_env.tool_env import WatercolourToolEnv
from watercolour_shared.prompts import tool_messages
from watercolour_shared.subjects import DEFAULT_SUBJECT


@dataclass
class ScriptArguments:
    model_name_or_path: str = field(
        default="Qwen/Qwen3-0.6B",
        metadata={"help": "the policy: a Hub id or a local folder"},
    )
    env_url: str = field(default="http://localhost:8000", metadata={"help": "a running watercolour environment"})
    subjects: list[str] = field(default_factory=lambda: [DEFAULT_SUBJECT], metadata={"help": "what to paint, in turn"})
    revisions: int = field(default=0, metadata={"help": "paintings after the first, each after a critique of the last"})
    images: bool = field(default=False, metadata={"help": "with revisions, the critique comes with the painting (a VLM's)"})


def main() -> None:
    script, config = TrlParser((ScriptArguments, GRPOConfig)).parse_args_and_config()
    # The brief (the subject and how to call the tool) comes from the environment's reset, after this message.
    rows = {"prompt": [tool_messages()] * len(script.subjects)}
    rows |= {"subject": script.subjects, "seed": [(config.seed + i) % 2**31 for i in range(len(script.subjects))]}
    trainer = GRPOTrainer(
        model=script.model_name_or_path,
        args=config,
        train_dataset=Dataset.from_dict(rows),
        environment_factory=partial(
            WatercolourToolEnv, base_url=script.env_url, revisions=script.revisions, images=script.images
        ),
    )
    trainer.train()
    trainer.save_model(config.output_dir)


if __name__ == "__main__":
    main()

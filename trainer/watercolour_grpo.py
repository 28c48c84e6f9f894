# /// script
# requires-python = ">=3.10"
# dependencies = [
#     "torch==2.14.0",
#     "trl==1.16.0",
#     "transformers==5.20.2",
#     "peft==0.21.2",
#     "accelerate==1.15.0",
#     "datasets==5.2.0",
#     "trackio==0.43.0",
#     "huggingface_hub>=2.4,<3",
#     "pydantic>=2.7,<3",
#     "httpx>=0.27,<1",
#     "numpy>=1.26",
#     "pillow>=10",
#     "redis>=5,<9",
#     "pyyaml>=6",
# ]
# ///
"""GRPO: teach a code LLM to paint watercolours in p5.brush, rewarded by the watercolour-rl environment.

    hf jobs uv run --flavor h200 --timeout 48h --secrets HF_TOKEN --name my-run \
      -v ./shared:/opt/watercolour/shared -v ./trainer:/opt/watercolour/trainer -e WATERCOLOUR_SRC=/opt/watercolour \
      trainer/watercolour_grpo.py -- --env_url https://<you>-watercolour-env.hf.space \
      --config /opt/watercolour/trainer/recipes/judge-led.yaml --flavor h200 --run_name my-run \
      --hub_model_id <you>/watercolour-grpo --push_to_hub

The configuration is TRL's GRPOConfig with this project's fields (watercolour_trainer/config.py; `--help` lists
every one), read as TRL's scripts read it: `--config` names a recipe file (trainer/recipes/judge-led.yaml), and a
flag given on the command line wins over it. `watercolour train-job --recipe judge-led --dry-run` prints this command
for your Spaces. Locally, in the project's environment (`make setup`):
`.venv/bin/python trainer/watercolour_grpo.py --config trainer/recipes/judge-led.yaml --env_url http://127.0.0.1:8000`.
On several GPUs: `accelerate launch --config_file trainer/watercolour_trainer/configs/<cfg>.yaml
trainer/watercolour_grpo.py ...`. Add --dry_run to check every service and see the plan and its cost.
"""

from __future__ import annotations

import logging
import os
import re
import sys

# A hosted job ships this file alone: the project's own packages (and the recipes) arrive as mounted folders.
for _package in ("shared", "trainer"):
    if os.environ.get("WATERCOLOUR_SRC"):
        sys.path.insert(0, os.path.join(os.environ["WATERCOLOUR_SRC"], _package))

from watercolour_shared.run_dir import RunWriter  # noqa: E402
from watercolour_trainer.config import LAST_CHECKPOINT, parse  # noqa: E402
from watercolour_trainer.held_out_curve import CurveCommand  # noqa: E402
from watercolour_trainer.plan import build_plan, describe  # noqa: E402
from watercolour_trainer.preflight import PreflightError, check_environments, client_wait  # noqa: E402
from watercolour_trainer.replicas import EnvReplicas, expand_replicas  # noqa: E402

log = logging.getLogger("watercolour_grpo")


def main(argv: list[str] | None = None) -> int:
    config = parse(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    # 1. The environments, asked before anything heavy loads: each must answer for every term the run weighs.
    replicas = expand_replicas(config.env_url)
    try:
        readiness = check_environments(
            replicas,
            config.mix_weights(),
            config.allow_missing_terms,
            token=os.environ.get("HF_TOKEN"),
            references=config.references,
        )
    except PreflightError as error:
        log.error("preflight failed; nothing was started:\n%s", error)
        return 2
    env_timeout = config.env_timeout or client_wait(readiness)
    if config.eval_steps and (missing := CurveCommand.of_config(config, config.run_dir).missing()):
        log.error("--eval_steps needs `watercolour curve` (studio) beside the trainer: %s; nothing was started", missing)
        return 2

    # 2. The plan and what it will cost; a dry run ends here.
    run = RunWriter(config.run_dir)
    plan = build_plan(config, run.root, replicas, readiness)
    if config.dry_run:
        print(describe(plan))
        return 0

    # The model code takes seconds to import: only a run that trains pays for it.
    from transformers.trainer_utils import get_last_checkpoint

    from watercolour_trainer.grpo_trainer import build_trainer, close_environments
    from watercolour_trainer.lora import PartialLoraError, coverage, decoder_layer_count
    from watercolour_trainer.model_loading import load_policy, load_tokenizer

    # 3. The run directory; a resumed run forgets the steps after its checkpoint and plays them again.
    checkpoint = config.resume_from_checkpoint
    if checkpoint == LAST_CHECKPOINT:
        checkpoint = get_last_checkpoint(str(run.checkpoints)) if run.checkpoints.exists() else None
        if checkpoint is None:
            log.error("--resume_from_checkpoint %s: no checkpoint in %s", LAST_CHECKPOINT, run.checkpoints)
            return 2
    if checkpoint is not None:
        step = re.fullmatch(r"checkpoint-(\d+)", os.path.basename(checkpoint.rstrip("/")))
        if step is None:
            log.error("--resume_from_checkpoint %s: not a checkpoint-N folder", checkpoint)
            return 2
        run.trim_after(int(step[1]))
        log.info("resuming from %s", checkpoint)
    run.write_plan(plan)

    # 4. The policy, in an explicit dtype.
    model = load_policy(config.model_name_or_path, config.bf16)
    tokenizer = load_tokenizer(config.model_name_or_path)

    # 5. GRPO, rewarded by the environment replicas: several prompts a step, each group with its own subject.
    replica_clients = EnvReplicas(replicas, os.environ.get("HF_TOKEN"), env_timeout)
    trainer = build_trainer(config, run, model, tokenizer, replica_clients, _trackio(config.report_to))

    # 6. LoRA must reach every decoder layer unless the user accepts less.
    if config.use_peft:
        covered = coverage(trainer.model, decoder_layer_count(model.config))
        log.info("%s", covered.describe())
        if not covered.complete and not config.allow_partial_lora:
            raise PartialLoraError(covered.describe() + ": use --lora_target_modules all-linear, or --allow_partial_lora")

    # 7. Train; then what trained (the adapter, or the whole model) and the tokenizer, then the Hub.
    trainer.train(resume_from_checkpoint=checkpoint)
    close_environments(trainer, replica_clients)
    if trainer.accelerator.is_main_process:
        saved = run.weights_dir(config.use_peft)
        trainer.save_model(str(saved))
        tokenizer.save_pretrained(str(saved))
        if config.push_to_hub:
            from watercolour_trainer.hub import push_run

            push_run(run, config.hub_model_id)
    return 0


def _trackio(report_to: list[str]):
    if "trackio" not in report_to:
        return None
    import trackio

    return trackio


if __name__ == "__main__":
    exit_code = main()
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    # Leave even if a library left a non-daemon thread behind: hosted jobs have marked clean runs as failed.
    os._exit(exit_code)

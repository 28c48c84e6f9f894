"""One training run, top to bottom: run directory, policy, GRPO with the environment's reward, adapter, push."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os

from datasets import Dataset
from transformers.trainer_utils import get_last_checkpoint
from trl import GRPOConfig, GRPOTrainer

from watercolour_shared.prompts import chat_messages
from watercolour_shared.render_wire import EpisodeOptions
from watercolour_trainer.film import RunDirectory
from watercolour_trainer.lora import PartialLoraError, coverage, decoder_layer_count, lora_config
from watercolour_trainer.model_loading import load_policy, load_tokenizer
from watercolour_trainer.monitoring import StepMonitor
from watercolour_trainer.replicas import EnvReplicas
from watercolour_trainer.rewards import EnvReward, StepClock

log = logging.getLogger(__name__)


def train(options: argparse.Namespace, replicas: list[str], plan: dict) -> int:
    # The run directory; a resumed run forgets the steps after its checkpoint and plays them again.
    run = RunDirectory(options.run_dir)
    checkpoint = None
    if options.resume:
        checkpoint = get_last_checkpoint(str(run.checkpoints)) if run.checkpoints.exists() else None
        if checkpoint is None:
            log.error("--resume: no checkpoint in %s", run.checkpoints)
            return 2
        run.trim_after(int(checkpoint.rsplit("-", 1)[1]))
        log.info("resuming from %s", checkpoint)
    run.write_plan(plan)

    # The policy, in an explicit dtype, and one prompt per episode (the episode id groups the rollouts).
    model = load_policy(options.model, options.bf16)
    tokenizer = load_tokenizer(options.model)
    dataset = Dataset.from_list([{"prompt": chat_messages(options.subject), "episode_id": i} for i in range(options.n_episodes)])

    trackio = _trackio(options)
    clock = StepClock()
    episode = EpisodeOptions(subject=options.subject, weights=options.mix_weights, references=options.references)
    reward = EnvReward(EnvReplicas(replicas, os.environ.get("HF_TOKEN"), options.env_timeout), episode, run, clock, options.seed)
    adapter = lora_config(options.all_linear, options.lora_targets, options.lora_r, options.lora_alpha) if options.lora else None
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[reward],
        args=grpo_config(options, run, trackio is not None),
        train_dataset=dataset,
        processing_class=tokenizer,
        peft_config=adapter,
        callbacks=[StepMonitor(run, clock, options.num_generations, trackio)],
    )
    reward.process_index = trainer.accelerator.process_index
    reward.rollouts_per_process = options.per_device_batch_size * trainer.args.steps_per_generation

    # LoRA must reach every decoder layer unless the user accepts less.
    if options.lora:
        covered = coverage(trainer.model, decoder_layer_count(model.config))
        log.info("%s", covered.describe())
        if not covered.complete and not options.allow_partial_lora:
            raise PartialLoraError(covered.describe() + ": use --all-linear, or --allow-partial-lora to train anyway")

    trainer.train(resume_from_checkpoint=checkpoint)

    # The adapter (or the whole model) and the tokenizer, then the Hub.
    asyncio.run_coroutine_threadsafe(reward.replicas.close(), trainer.async_loop).result()
    if trainer.accelerator.is_main_process:
        trainer.save_model(str(run.adapter))
        tokenizer.save_pretrained(str(run.adapter))
        if options.push_to_hub:
            from watercolour_trainer.hub import push_run

            push_run(run, options.out)
    return 0


def grpo_config(options: argparse.Namespace, run: RunDirectory, use_trackio: bool) -> GRPOConfig:
    return GRPOConfig(
        output_dir=str(run.checkpoints),
        run_name=options.run_tag,
        project="watercolour-rl",
        report_to=["trackio"] if use_trackio else "none",
        trackio_static_space_id=False,
        seed=options.seed,
        max_steps=options.steps,
        learning_rate=options.lr,
        lr_scheduler_type=options.lr_scheduler,
        warmup_steps=options.warmup_steps,
        per_device_train_batch_size=options.per_device_batch_size,
        gradient_accumulation_steps=options.gradient_accumulation_steps,
        num_generations=options.num_generations,
        max_completion_length=options.max_completion_length,
        top_p=options.top_p,
        top_k=options.top_k,
        temperature=options.temperature,
        scale_rewards=options.scale_rewards,
        beta=options.beta,
        bf16=options.bf16,
        gradient_checkpointing=options.gradient_checkpointing,
        chat_template_kwargs={"enable_thinking": False},
        use_vllm=options.use_vllm is not None,
        vllm_mode=options.use_vllm or "colocate",
        vllm_server_base_url=options.vllm_server_url,
        save_steps=options.save_steps,
        logging_steps=1,
        remove_unused_columns=False,
    )


def _trackio(options: argparse.Namespace):
    if options.report_to != "trackio":
        return None
    import trackio

    return trackio

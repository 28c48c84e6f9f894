"""TRL's GRPOTrainer as the launch script builds it: the episodes, the environment's reward, the LoRA adapter,
the step monitor and, on CUDA, compiled generation. bench/grpo_step_bench.py builds the very same one."""

from __future__ import annotations

import argparse

from datasets import Dataset
from trl import GRPOTrainer

from watercolour_shared.prompts import chat_messages
from watercolour_shared.render_wire import EpisodeOptions
from watercolour_shared.reward import MixWeights
from watercolour_shared.run_dir import RunWriter
from watercolour_trainer import compile_cache, compiled_generation, lora_merge
from watercolour_trainer.env_reward import EnvReward, StepClock
from watercolour_trainer.grpo_config import grpo_config
from watercolour_trainer.lora import lora_config
from watercolour_trainer.monitoring import StepMonitor
from watercolour_trainer.options import compiles_generation
from watercolour_trainer.replicas import EnvReplicas


def episodes(subjects: list[str], count: int) -> list[dict]:
    """One prompt per episode, the subjects in turn; the episode id groups a prompt's rollouts."""
    rows = []
    for episode_id in range(count):
        subject = subjects[episode_id % len(subjects)]
        rows.append({"prompt": chat_messages(subject), "episode_id": episode_id, "subject": subject})
    return rows


def build_trainer(
    options: argparse.Namespace,
    weights: MixWeights,
    run: RunWriter,
    model,
    tokenizer,
    replicas: EnvReplicas,
    trackio=None,
) -> GRPOTrainer:
    """Each process scores its own share of every step's groups; each group is rendered with its own subject."""
    cache = getattr(options, "compile_cache", None)
    if cache is not None:
        compile_cache.use(cache)  # before the first compile
    clock = StepClock()
    episode = EpisodeOptions(subject=options.subject[0], weights=weights, references=options.references)
    reward = EnvReward(replicas, episode, run, clock, options.seed)
    adapter = lora_config(options.all_linear, options.lora_targets, options.lora_r, options.lora_alpha) if options.lora else None
    dataset = episodes(options.subject, options.n_episodes)
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[reward],
        args=grpo_config(options, run, trackio is not None),
        train_dataset=Dataset.from_list(dataset),
        processing_class=tokenizer,
        peft_config=adapter,
        callbacks=[StepMonitor(run, clock, trackio)],
    )
    reward.process_index = trainer.accelerator.process_index
    reward.rollouts_per_process = options.per_device_batch_size * trainer.args.steps_per_generation
    compiled_generation.one_input_grad_hook(trainer)
    if options.lora and getattr(options, "merged_lora_generation", False) and options.use_vllm is None:
        lora_merge.merge_lora_for_generation(trainer)
    if getattr(options, "decode_experts", "batched_mm") == "grouped_mm":
        compiled_generation.keep_grouped_experts(trainer)
    if cache is not None:
        trainer.add_callback(compile_cache.SaveCompileCache(cache))
    if compiles_generation(options):
        first_of_each = [row["prompt"] for row in dataset[: len(options.subject)]]
        compiled_generation.enable(trainer, compiled_generation.longest_prompt(tokenizer, first_of_each))
    return trainer

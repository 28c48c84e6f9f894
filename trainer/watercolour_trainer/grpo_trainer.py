"""TRL's GRPOTrainer as the launch script builds it: the episodes, the environment's reward, the LoRA adapter,
the step monitor and, on CUDA, compiled generation. bench/grpo_step_bench.py builds the very same one. With
--revisions, TRL's tool calling paints each rollout's turns in an episode of the environment (revisions.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from datasets import Dataset
from trl import GRPOTrainer

from watercolour_shared.prompts import chat_messages, tool_messages
from watercolour_shared.render_wire import EpisodeOptions
from watercolour_shared.run_dir import RunWriter
from watercolour_trainer import compile_cache, compiled_generation, lora_merge, moe_decode
from watercolour_trainer.config import WatercolourGRPOConfig
from watercolour_trainer.env_reward import EnvReward, StepClock, step_seed
from watercolour_trainer.held_out_curve import CurveCommand, HeldOutCurve
from watercolour_trainer.lora import lora_config
from watercolour_trainer.monitoring import StepMonitor
from watercolour_trainer.replicas import EnvReplicas
from watercolour_trainer.term_rewards import GDPO, term_reward_functions


def episodes(subjects: list[str], count: int) -> list[dict]:
    """One prompt per episode, the subjects in turn; the episode id groups a prompt's rollouts."""
    rows = []
    for episode_id in range(count):
        subject = subjects[episode_id % len(subjects)]
        rows.append({"prompt": chat_messages(subject), "episode_id": episode_id, "subject": subject})
    return rows


def tool_episodes(subjects: list[str], count: int, run_seed: int) -> list[dict]:
    """The episodes of a run with revisions: the brief comes from the environment's reset (TRL appends it to the empty
    user turn), and each row carries the seed its episode paints every turn with, so a group's rollouts, which share
    the row, share it (one seed an episode, drawn as a step's is)."""
    rows = episodes(subjects, count)
    return [{**row, "prompt": tool_messages(), "seed": step_seed(run_seed, row["episode_id"])} for row in rows]


def build_trainer(
    config: WatercolourGRPOConfig,
    run: RunWriter,
    model,
    tokenizer,
    replicas: EnvReplicas,
    trackio=None,
) -> GRPOTrainer:
    """Each process scores its own share of every step's groups; each group is rendered with its own subject."""
    if config.compile_cache is not None:
        compile_cache.use(Path(config.compile_cache))  # before the first compile
    clock = StepClock()
    episode = EpisodeOptions(subject=config.subjects[0], weights=config.mix_weights(), references=config.references)
    args = config.for_trainer(run.checkpoints)
    tool_calling = {}  # with revisions: TRL's environment_factory
    if config.revisions:
        from watercolour_trainer.revisions import RevisionReward, ToolEnvs

        reward = RevisionReward(run, clock)
        reward_funcs = [reward]
        tool_calling["environment_factory"] = ToolEnvs(
            replicas.urls,
            weights=episode.weights.model_dump(),
            references=episode.references,
            revisions=config.revisions,
            revision_bonus=config.revision_bonus,
            message_timeout_s=replicas.timeout_s,
            headers={"Authorization": f"Bearer {replicas.token}"} if replicas.token else None,
        )
        dataset = tool_episodes(config.subjects, config.n_episodes, config.seed)
    else:
        reward = EnvReward(replicas, episode, run, clock, config.seed)
        reward_funcs = [reward]
        if config.multi_objective_aggregation == GDPO:  # each term normalised in its group, then weighted
            reward_funcs, args.reward_weights = term_reward_functions(reward, episode.weights)
        dataset = episodes(config.subjects, config.n_episodes)
    adapter = lora_config(config.lora_targets, config.lora_r, config.lora_alpha) if config.use_peft else None
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=reward_funcs,
        args=args,
        train_dataset=Dataset.from_list(dataset),
        processing_class=tokenizer,
        peft_config=adapter,
        callbacks=[StepMonitor(run, clock, trackio)],
        **tool_calling,
    )
    reward.index.process_index = trainer.accelerator.process_index
    reward.index.rollouts_per_process = config.per_device_train_batch_size * trainer.args.steps_per_generation
    compiled_generation.one_input_grad_hook(trainer)
    if config.use_peft and config.merged_lora_generation and not config.use_vllm:
        lora_merge.merge_lora_for_generation(trainer)
    if config.decode_experts == "grouped_mm":
        compiled_generation.keep_grouped_experts(trainer)
    if config.fused_moe_decode:
        moe_decode.fuse_decode(trainer)
    if config.compile_cache is not None:
        trainer.add_callback(compile_cache.SaveCompileCache(Path(config.compile_cache)))
    if config.eval_steps and trainer.accelerator.is_main_process:
        trainer.add_callback(HeldOutCurve(CurveCommand.of_config(config, run.root), config.eval_steps))
    if config.compiled_generation:
        first_of_each = [row["prompt"] for row in dataset[: len(config.subjects)]]
        compiled_generation.enable(trainer, compiled_generation.longest_prompt(tokenizer, first_of_each))
    return trainer


def close_environments(trainer: GRPOTrainer, replicas: EnvReplicas) -> None:
    """The replicas' HTTP clients, on the loop that used them, and a run with revisions' WebSocket sessions."""
    if getattr(trainer, "async_loop", None) is not None:  # TRL starts it for an async reward function (EnvReward's)
        asyncio.run_coroutine_threadsafe(replicas.close(), trainer.async_loop).result()
    else:
        asyncio.run(replicas.close())
    for factory in (trainer.environment_factories or {}).values():
        factory.close()

"""The launch flags as TRL's GRPOConfig: what each flag means to the trainer."""

from __future__ import annotations

import argparse

from trl import GRPOConfig

from watercolour_shared.run_dir import RunWriter
from watercolour_trainer.options import compiles_generation


def grpo_config(options: argparse.Namespace, run: RunWriter, use_trackio: bool) -> GRPOConfig:
    forced = {"min_new_tokens": options.min_completion_length} if options.min_completion_length else None
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
        generation_kwargs=forced,
        # A static cache is what makes generation compilable; compiled_generation.enable() then lets it compile.
        cache_implementation="static" if compiles_generation(options) else None,
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

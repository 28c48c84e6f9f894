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
# ]
# ///
"""GRPO: teach a code LLM to paint watercolours in p5.brush, rewarded by the watercolour-rl environment.

    hf jobs uv run --flavor h200 --timeout 48h --secrets HF_TOKEN \
      -v ./shared:/opt/watercolour/shared -v ./trainer:/opt/watercolour/trainer \
      -e WATERCOLOUR_SRC=/opt/watercolour \
      trainer/watercolour_grpo.py -- \
      --env-url https://<you>-watercolour-env.hf.space \
      --model Qwen/Qwen3.5-35B-A3B --lora --all-linear --bf16 --gradient-checkpointing \
      --subject 'a peach hibiscus' --references 4 --top-p 0.95 --top-k 20 \
      --lr 5e-5 --lr-scheduler constant_with_warmup --warmup-steps 5 --scale-rewards none \
      --steps 110 --n-episodes 240 --num-generations 8 \
      --per-device-batch-size 1 --gradient-accumulation-steps 8 \
      --max-completion-length 8192 --run-tag my-run --out <you>/watercolour-grpo --push-to-hub

Locally the same script runs in the project's environment (`make setup` installs shared/ and
trainer/): `.venv/bin/python trainer/watercolour_grpo.py --env-url http://127.0.0.1:8000 ...`.
On several GPUs: `accelerate launch --config_file trainer/watercolour_trainer/configs/<cfg>.yaml
trainer/watercolour_grpo.py ...`. Add --dry-run to check every service and see the plan and its cost.
"""

from __future__ import annotations

import logging
import os
import sys

# A hosted job ships this file alone: the project's own packages arrive as mounted folders (-v above).
for _package in ("shared", "trainer"):
    if os.environ.get("WATERCOLOUR_SRC"):
        sys.path.insert(0, os.path.join(os.environ["WATERCOLOUR_SRC"], _package))

from watercolour_trainer import options as launch_options  # noqa: E402
from watercolour_trainer.plan import build_plan, describe  # noqa: E402
from watercolour_trainer.preflight import PreflightError, check_environments  # noqa: E402
from watercolour_trainer.replicas import expand_replicas  # noqa: E402

log = logging.getLogger("watercolour_grpo")


def main(argv: list[str] | None = None) -> int:
    options = launch_options.parse(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    # 1. The environments, checked before anything heavy loads.
    replicas = expand_replicas(options.env_url)
    try:
        healths = check_environments(replicas, options.mix_weights, options.allow_missing_terms, token=os.environ.get("HF_TOKEN"))
    except PreflightError as error:
        log.error("preflight failed; nothing was started:\n%s", error)
        return 2
    plan = build_plan(options, replicas, healths)
    if options.dry_run:
        print(describe(plan))
        return 0

    # 2. The policy and its training, in their own module: importing torch and TRL takes a while.
    from watercolour_trainer.session import train

    return train(options, replicas, plan)


if __name__ == "__main__":
    exit_code = main()
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    # Leave even if a library left a non-daemon thread behind: hosted jobs have marked clean runs as failed.
    os._exit(exit_code)

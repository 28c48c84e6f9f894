#!/usr/bin/env bash
# The trainer on two GPUs of one host (accelerate, data parallel), on a tiny policy built from config,
# against the length-only environment: two processes, each scoring its share of every step's groups,
# one adapter saved. Run from the repository root on a 2-GPU machine; writes its evidence to $OUT.
set -euo pipefail
export OUT=${OUT:-/tmp/multi-gpu-check}
mkdir -p "$OUT"
export WATERCOLOUR_SRC=$PWD PYTHONPATH=${PYTHONPATH:-}:$PWD/shared:$PWD/harness
python3 bench/length_only_env.py --port 8321 &
env_pid=$!
trap 'kill $env_pid' EXIT
python3 - <<'PY'
from pathlib import Path
from watercolour_harness.tiny_policy import SIZES, build_policy, build_tokenizer, save_policy
from watercolour_shared.prompts import system_prompt
texts = [p.read_text() for p in Path("services/env/watercolour_env/data/pool/sources").glob("*.js")] + [system_prompt()]
tokenizer = build_tokenizer(texts)
save_policy(build_policy(tokenizer, SIZES["small"]), tokenizer, Path("/tmp/tiny-policy"))
PY
accelerate launch --config_file trainer/watercolour_trainer/configs/multi_gpu.yaml --num_processes 2 \
  trainer/watercolour_grpo.py --env_url http://127.0.0.1:8321 --model_name_or_path /tmp/tiny-policy --use_peft \
  --lora_target_modules all-linear --per_device_train_batch_size 1 --weights gate=0,length=1,judge=0,hps=0 \
  --max_steps 3 --max_completion_length 256 --report_to none --output_dir /tmp/mgpu-run 2>&1 | tee "$OUT/train.log"
python3 - <<'PY'
import json, os
from pathlib import Path
run = Path("/tmp/mgpu-run")
steps = sorted(p.name for p in (run / "film").iterdir())
evidence = {
    "steps": {s: sorted(p.name for p in (run / "film" / s).glob("*.json")) for s in steps},
    "groups_per_step": {s: sorted({json.loads(p.read_text())["group"] for p in (run / "film" / s).glob("*.json")}) for s in steps},
    "metrics": [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()],
    "adapter": sorted(p.name for p in (run / "adapter").iterdir()),
    "shares": [line.split("INFO ")[-1] for line in Path(os.environ["OUT"], "train.log").read_text().splitlines() if "scores" in line],
}
Path(os.environ["OUT"], "multi-gpu-check.json").write_text(json.dumps(evidence, indent=1))
print(json.dumps(evidence["shares"], indent=1), evidence["adapter"])
PY

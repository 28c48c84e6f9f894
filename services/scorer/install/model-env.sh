#!/usr/bin/env bash
# The scorer's own Python environment for the real HPSv3 model (transformers 4.45.2:
# it cannot share an environment with the trainer). Used by `make scorer-env`, CI
# and services/scorer/Dockerfile. Usage: model-env.sh VENV_DIR
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
venv="${1:-$root/.venv-scorer}"
python3 -m venv "$venv"
pip=("$venv/bin/python" -m pip install -q)
"${pip[@]}" --upgrade pip
# torchvision must match torch exactly; these two releases are the pair this project tests.
"${pip[@]}" "torch==${TORCH_VERSION:-2.14.1}" "torchvision==${TORCHVISION_VERSION:-0.29.1}"
"${pip[@]}" --no-deps "hpsv3==1.0.0"
"${pip[@]}" -r "$root/services/scorer/requirements-hpsv3.txt"
"${pip[@]}" -e "$root/shared" -e "$root/services/scorer[dev]"
"$venv/bin/python" -c "import hpsv3, transformers; assert transformers.__version__ == '4.45.2'"

#!/usr/bin/env bash
# `make stack-test`: the CPU profile as containers, built and tested the way a user runs it.
# Installs what is missing (deploy/docker/engine.sh), builds the CPU-profile images on a local Debian base,
# runs tests/stack (which bring the stack up with two environment replicas) against the published ports
# and `docker` itself, and always tears down: no container, network or volume of the project is left behind.
# Usage: stack-test.sh [pytest arguments]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
bash deploy/docker/engine.sh

export COMPOSE_PROJECT_NAME="${COMPOSE_PROJECT_NAME:-watercolour-stack-test}"
export COMPOSE_PROFILES=cpu
# Compose builds with the engine's own BuildKit; Bake would need the buildx plugin.
export COMPOSE_BAKE=false
export WATERCOLOUR_BASE_IMAGE="${WATERCOLOUR_BASE_IMAGE:-watercolour-local/debian:bookworm-slim}"
export WATERCOLOUR_REDIS_IMAGE="${WATERCOLOUR_REDIS_IMAGE:-watercolour-local/redis:bookworm}"
# The host's CA bundle: trusted here, so trusted in the builds (a network that re-signs TLS).
if [ -z "${WATERCOLOUR_EXTRA_CA_BUNDLE:-}" ] && [ -s /etc/ssl/certs/ca-certificates.crt ]; then
  export WATERCOLOUR_EXTRA_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
fi
# torch's CPU wheel from wherever this host's pip finds it (PyTorch's index may be out of reach).
torch_version="$(sed -n 's/^ARG TORCH_VERSION=//p' services/env/Dockerfile)"
ls deploy/docker/wheelhouse/torch-"$torch_version"+cpu-*.whl >/dev/null 2>&1 \
  || python3 -m pip download -q --no-deps --only-binary :all: "torch==$torch_version" -d deploy/docker/wheelhouse \
  || echo "no local torch wheel: the demo image takes torch from PyTorch's CPU index"

teardown() {
  docker compose down --volumes --remove-orphans --timeout 10 >/dev/null 2>&1 || true
  local left
  left="$(docker ps -aq --filter "label=com.docker.compose.project=$COMPOSE_PROJECT_NAME")$(
    docker network ls -q --filter "label=com.docker.compose.project=$COMPOSE_PROJECT_NAME")$(
    docker volume ls -q --filter "label=com.docker.compose.project=$COMPOSE_PROJECT_NAME")"
  [ -z "$left" ] || { echo "stack-test left resources behind: $left" >&2; exit 1; }
}
trap teardown EXIT

timed() { local start=$SECONDS; "$@"; echo "stack-test: '$*' took $((SECONDS - start)) s"; }
timed docker compose build --quiet
# The tests bring the stack up themselves (tests/stack/compose.py), timing it, and restore it after faults.
WATERCOLOUR_STACK="$COMPOSE_PROJECT_NAME" timed "$root/.venv/bin/pytest" -q -s tests/stack "$@"

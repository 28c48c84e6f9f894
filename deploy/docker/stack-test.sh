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

source deploy/docker/stack-env.sh
# torch's CPU wheel from wherever this host's pip finds it (PyTorch's index may be out of reach).
torch_version="$(sed -n 's/^ARG TORCH_VERSION=//p' services/env/Dockerfile)"
ls deploy/docker/wheelhouse/torch-"$torch_version"+cpu-*.whl >/dev/null 2>&1 \
  || python3 -m pip download -q --no-deps --only-binary :all: "torch==$torch_version" -d deploy/docker/wheelhouse \
  || echo "no local torch wheel: the demo image takes torch from PyTorch's CPU index"

take_down() { docker compose down --volumes --remove-orphans --timeout 10 >/dev/null 2>&1 || true; }
teardown() {
  take_down
  local left
  left="$(docker ps -aq --filter "label=com.docker.compose.project=$COMPOSE_PROJECT_NAME")$(
    docker network ls -q --filter "label=com.docker.compose.project=$COMPOSE_PROJECT_NAME")$(
    docker volume ls -q --filter "label=com.docker.compose.project=$COMPOSE_PROJECT_NAME")"
  [ -z "$left" ] || { echo "stack-test left resources behind: $left" >&2; exit 1; }
}
# A run that was killed never reached its teardown: start from none of the project's containers or volumes.
take_down
trap teardown EXIT

# Each phase's seconds, printed and, when WATERCOLOUR_STACK_TIMINGS names a file, appended to it as JSON lines
# (bench/stack_bench.py reads them; the tests add the time from `up` to all healthy).
timed() {
  local name="$1" start=$SECONDS
  shift
  "$@"
  echo "stack-test: $name took $((SECONDS - start)) s"
  [ -z "${WATERCOLOUR_STACK_TIMINGS:-}" ] \
    || echo "{\"phase\": \"$name\", \"seconds\": $((SECONDS - start))}" >>"$WATERCOLOUR_STACK_TIMINGS"
}
# WATERCOLOUR_STACK_BUILD_ARGS: e.g. --no-cache, for a cold build's time.
# shellcheck disable=SC2086
timed build docker compose build --quiet ${WATERCOLOUR_STACK_BUILD_ARGS:-}
# The tests bring the stack up themselves (tests/stack/compose.py), timing it, and restore it after faults.
WATERCOLOUR_STACK="$COMPOSE_PROJECT_NAME" timed tests "$root/.venv/bin/pytest" -q -s --durations=15 tests/stack "$@"

#!/bin/sh
# The demo's command in its container (the compose CPU profile): the whole loop against the profile's
# environment, the warm start cached in the mounted Hugging Face cache, each run in a new folder of the
# runs volume. Defaults are here: compose passes a variable .env does not set as unset.
set -eu
: "${WATERCOLOUR_DEMO_ENV_URL=http://env-cpu:8000}"
: "${WATERCOLOUR_DEMO_ARGS=--steps 15 --group-size 8}"
# WATERCOLOUR_DEMO_ARGS is split into words on purpose: it holds more demo flags (--steps 30 --model-size large).
# shellcheck disable=SC2086
exec python -m watercolour_demo --env-url "${WATERCOLOUR_DEMO_ENV_URL:?}" --cache-dir "${HF_HOME:?}/watercolour-rl" \
  --run-dir "/runs/demo-$(date -u +%Y%m%d-%H%M%S)" ${WATERCOLOUR_DEMO_ARGS:-}

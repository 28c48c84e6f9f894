#!/bin/sh
# The trainer's command in its container: the recipe file WATERCOLOUR_RECIPE (read with --config, as a local
# run and a Hugging Face job read it), plus what only the container knows, from the WATERCOLOUR_*
# variables docker-compose.yml passes on from .env. Their defaults are here: compose passes a variable
# .env does not set as unset, which would hide a default in the image.
# WATERCOLOUR_ENV_URLS holds one or more URLs; a compose service name (http://env:8000) resolves to every
# replica of `--scale env=N`, and the trainer spreads each group's rollouts over them.
set -eu
: "${WATERCOLOUR_ENV_URLS=http://env:8000}"
: "${WATERCOLOUR_RECIPE=trainer/recipes/judge-led.yaml}"
: "${WATERCOLOUR_RUN_TAG=compose-run}"
set -- --env_url
for url in ${WATERCOLOUR_ENV_URLS:?}; do
  set -- "$@" "$url"
done
if [ -n "${WATERCOLOUR_TRAIN_OUT:-}" ]; then
  : "${HF_TOKEN:?HF_TOKEN is required to push the adapter and rollouts to WATERCOLOUR_TRAIN_OUT}"
  set -- "$@" --hub_model_id "$WATERCOLOUR_TRAIN_OUT" --push_to_hub
fi
# WATERCOLOUR_TRAIN_ARGS is split into words on purpose: it holds more trainer flags, which win over the recipe's.
# shellcheck disable=SC2086
exec python trainer/watercolour_grpo.py --config "${WATERCOLOUR_RECIPE:?}" "$@" \
  --run_name "${WATERCOLOUR_RUN_TAG:?}" --output_dir "/runs/$WATERCOLOUR_RUN_TAG" ${WATERCOLOUR_TRAIN_ARGS:-}

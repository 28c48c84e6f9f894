# Sourced by stack-test.sh and bench/stack_bench.py: the compose project under test and where its images
# come from. Every variable can be set beforehand to point elsewhere.
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

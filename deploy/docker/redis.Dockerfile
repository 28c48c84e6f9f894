# Redis from Debian's package, for a machine that cannot pull the official image (compose uses
# redis:7.2.5-bookworm unless WATERCOLOUR_REDIS_IMAGE names another). Same command and health check.
# Build:  docker build -f deploy/docker/redis.Dockerfile -t watercolour-local/redis:bookworm deploy/docker
ARG WATERCOLOUR_BASE_IMAGE=debian:bookworm-20250630-slim
FROM ${WATERCOLOUR_BASE_IMAGE}
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server \
 && rm -rf /var/lib/apt/lists/*
USER redis
EXPOSE 6379
CMD ["redis-server", "--bind", "0.0.0.0", "--protected-mode", "no", "--save", "", "--appendonly", "no"]

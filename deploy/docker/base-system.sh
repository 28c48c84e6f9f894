#!/usr/bin/env bash
# The layer under every image: Debian's Python in a venv at /opt/venv, the system CA bundle, and an
# optional extra certificate authority (a network that re-signs TLS: corporate proxies, this CI).
# The extra CA arrives as the build secret `extra_ca`; without it the image is what it would be anyway.
# Usage (in a Dockerfile):  RUN --mount=type=secret,id=extra_ca bash base-system.sh [more Debian packages]
set -euo pipefail
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  ca-certificates python3 python3-venv "$@"

extra=/run/secrets/extra_ca
if [ -s "$extra" ]; then
  cp "$extra" /usr/local/share/ca-certificates/watercolour-extra-ca.crt
  update-ca-certificates >/dev/null
  # pip and npm carry their own CA lists; point them at the system bundle that now holds the extra CA.
  printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n' > /etc/pip.conf
  printf 'cafile=/etc/ssl/certs/ca-certificates.crt\n' > /etc/npmrc
fi

python3 -m venv /opt/venv
rm -rf /var/lib/apt/lists/*

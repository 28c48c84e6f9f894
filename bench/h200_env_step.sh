#!/bin/bash
# The GPU host's side of bench/grpo_step_bench.py --envs, on a bare nvidia-h200 machine that can reach nothing:
# what the real environment needs arrives as one payload split into parts, one part per call while the machine is warm.
#
# Made here (Debian bookworm), in the ignored folder .payload/: Debian's Chromium (/usr/lib/chromium, its wrapper
# and /etc/chromium.d, moved under /opt/wc), every library it and redis-server link that glibc does not hold, Redis,
# the GL loaders of the device README (libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2), p5 and
# p5.brush from services/env/assets/node_modules, and the Python packages the host lacks installed for
# Python 3.12 (pip install --target: the project's pins of transformers, trl, peft and datasets; the server's
# fastapi, uvicorn, pydantic(-settings), playwright, tree-sitter(-javascript), redis; their missing needs).
#
#   bash bench/h200_env_step.sh keep .payload/part.aa      (each call but the last: keep this call's part)
#   bash bench/h200_env_step.sh setup                      (all parts kept: unpack to /opt/wc, start Redis)
#   bash bench/h200_env_step.sh run ARGS...                (python3 bench/grpo_step_bench.py ARGS with all that)
#   bash bench/h200_env_step.sh probe SCRIPT ARGS...       (python3 SCRIPT ARGS with the same environment, e.g.
#                                                           bench/vulkan_flags_probe.py all: the WebGL modes here)
#
# On the 2026-12-03 machine the gpu-vulkan flag set of the day crashed this Chromium's GPU process (exit code 11), gpu-egl
# drew on the H200 (bench/results/grpo-env-step-35b-h200-2026-12-03.json); without the `Vulkan` feature gpu-vulkan draws
# there again (bench/results/webgl-h200-2026-12-03-vulkan.json).
set -euo pipefail
WC=/opt/wc
PARTS=/tmp/wc-parts

keep() {
  mkdir -p "$PARTS"
  cp "$@" "$PARTS"/
  ls -la "$PARTS"
}

setup() {
  if [ ! -x "$WC/bin/chromium" ]; then
    mkdir -p /tmp/wc-unpack
    cat "$PARTS"/part.* | tar -C /tmp/wc-unpack -xf -
    mkdir -p /opt
    xz -T0 -dc /tmp/wc-unpack/rest.tar.xz | tar -C /opt -xf -
    xz -T0 -dc /tmp/wc-unpack/chromium.xz >"$WC/chromium/chromium"
    xz -T0 -dc /tmp/wc-unpack/node.xz >"$WC/site/playwright/driver/node"
    chmod 755 "$WC/chromium/chromium" "$WC/site/playwright/driver/node"
    rm -rf /tmp/wc-unpack "$PARTS"
    for f in "$WC"/gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
    # Only the libraries this host lacks go on Chromium's path: the host's own are newer and stay first.
    mkdir -p "$WC/lib"
    local binaries=("$WC/chromium/chromium" "$WC/chromium/chrome_crashpad_handler" "$WC/chromium/libvk_swiftshader.so"
      "$WC/chromium/libEGL.so" "$WC/chromium/libGLESv2.so" "$WC/bin/redis-check-rdb")
    for _ in 1 2 3 4 5 6 7 8; do
      missing=$(LD_LIBRARY_PATH="$WC/lib" ldd "${binaries[@]}" | awk '/not found/ {print $1}' | sort -u)
      [ -z "$missing" ] && break
      for lib in $missing; do cp "$WC/libs-all/$lib" "$WC/lib/"; done
    done
    if [ -e "$WC/lib/libnss3.so" ]; then  # NSS loads its modules from beside itself
      cp -r "$WC/libs-all/nss" "$WC/lib/"
      cp "$WC"/libs-all/nss/*.so "$WC/lib/"
    fi
    echo "libraries the host lacked: $(ls "$WC/lib" | tr '\n' ' ')"
  fi
  if ! (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null; then
    LD_LIBRARY_PATH="$WC/lib" "$WC/bin/redis-server" --port 6379 --bind 127.0.0.1 --save '' --appendonly no \
      --daemonize yes --logfile /tmp/redis.log
  fi
  LD_LIBRARY_PATH="$WC/lib" "$WC/chromium/chromium" --version
}

environment() {
  local repo
  repo=$(pwd)
  export PYTHONPATH="$WC/site:$repo/shared:$repo/services/env:$repo/services/scorer:$repo/trainer:$repo/harness:$repo/bench"
  export PYTHONUNBUFFERED=1 WATERCOLOUR_ALLOW_SHARED_NETWORK=1
  # The driver's Vulkan ICD for the GPU modes (bench/step_env.py keeps it from the software ones).
  for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json \
    /etc/vulkan/icd.d/nvidia_icd.json; do
    if [ -e "$icd" ]; then
      export VK_DRIVER_FILES="$icd" VK_ICD_FILENAMES="$icd"
      break
    fi
  done
  local egl=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  if [ -e "$egl" ]; then export __EGL_VENDOR_LIBRARY_FILENAMES="$egl"; fi
  export WATERCOLOUR_CHROMIUM_PATH="$WC/bin/chromium" WATERCOLOUR_ASSETS_DIR="$WC/assets"
  export REDIS_URL=redis://127.0.0.1:6379/0
}

probe() {
  environment
  python3 "$@"
}

run() {
  environment
  python3 bench/grpo_step_bench.py --chromium "$WC/bin/chromium" --assets "$WC/assets" \
    --redis-url redis://127.0.0.1:6379/0 "$@"
}

"$@"

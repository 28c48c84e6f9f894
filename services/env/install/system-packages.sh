#!/usr/bin/env bash
# Debian packages the environment needs at run time: Chromium (Playwright drives
# Debian's build; Playwright's own browser download is never used) and Node.js
# with npm for the p5/p5.brush assets; libatomic1 for the Node.js that Playwright bundles.
# Used by `make setup`, CI and the Dockerfile.
# libvulkan1 and libegl1 are the loaders Chromium opens for WATERCOLOUR_CHROMIUM_GL=gpu-vulkan / gpu-egl;
# the GPU driver's own libraries come from the host (the NVIDIA container runtime mounts them).
# libegl-mesa0 and libgl1-mesa-dri are Mesa's EGL and its llvmpipe rasteriser: WebGL's CPU path without a GPU.
set -euo pipefail
packages=(chromium fonts-dejavu-core libatomic1 libegl1 libegl-mesa0 libgl1-mesa-dri libvulkan1 nodejs npm)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
# npm may come from elsewhere (a newer Node.js install); only the binary matters.
if command -v npm >/dev/null; then missing=("${missing[@]/npm}"); fi
if command -v node >/dev/null; then missing=("${missing[@]/nodejs}"); fi
read -r -a missing <<< "${missing[*]}"
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
/usr/bin/chromium --version

#!/usr/bin/env bash
# Installs every Debian 12 package the build, the tests, the bench and the viewer need.
# Idempotent and quick when everything is present; runs apt as root or through sudo.
set -euo pipefail

packages=(
  g++ cmake make ninja-build pkg-config git ca-certificates
  libtbb-dev libxsimd-dev libglm-dev catch2 libtomlplusplus-dev libcli11-dev libfmt-dev
  libbenchmark-dev
  libglfw3-dev libepoxy-dev libimgui-dev libstb-dev libgl1-mesa-dri xvfb xauth
  python3 python3-numpy python3-dev python3-venv python3-pytest python3-matplotlib
  python3-setuptools python3-pybind11 pybind11-dev
  libhdf5-dev hdf5-tools python3-h5py python3-mdanalysis python3-meshio
  clang-14 libclang-rt-14-dev
  libopenmpi-dev openmpi-bin
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null; then
    sudo=(sudo)
  else
    echo "setup: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"

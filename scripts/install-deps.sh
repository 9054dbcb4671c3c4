#!/usr/bin/env bash
# Installs the Debian 12 packages provd needs to build and test. Idempotent and silent when
# everything is already there; uses sudo when not run as root. The CUDA Toolkit is not a Debian
# package: when /usr/local/cuda/bin/nvcc (or nvcc on PATH) exists the kernels are built too.
set -euo pipefail

packages=(
  cmake ninja-build ccache g++ pkg-config
  protobuf-compiler protobuf-compiler-grpc libprotobuf-dev libgrpc++-dev
  libabsl-dev libboost-dev libspdlog-dev libfmt-dev prometheus-cpp-dev
  libgtest-dev libgmock-dev libcli11-dev nlohmann-json3-dev libssl-dev libsqlite3-dev libpq-dev
  openssl
  prometheus yamllint systemd
  postgresql-15  # the PostgreSQL store's tests start a server of their own (never the system one)
)

# Node.js and npm run the ffjavascript / snarkjs oracles of the tests. Any node >= 18 will do
# (a NodeSource install counts), so only ask Debian for them when the commands are missing.
command -v node >/dev/null || packages+=(nodejs)
command -v npm >/dev/null || packages+=(npm)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
echo "install-deps: installing ${missing[*]}" >&2
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
  "${missing[@]}" >/dev/null

#!/usr/bin/env bash
# Installs what is missing, then configures and builds a CMake preset (default: release) into
# build/<preset>, with ccache. Usage: scripts/build.sh [release|debug] [target ...]
# (no target: everything)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
preset=${1:-release}
shift || true
targets=()
for target in "$@"; do targets+=(--target "$target"); done

"$root/scripts/install-deps.sh"
cd "$root"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" --parallel "$(nproc)" "${targets[@]}"

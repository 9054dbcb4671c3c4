#!/usr/bin/env bash
# Builds a preset (default: release) and runs the whole test suite with ctest. GPU tests skip
# (and are reported as skipped) on hosts without a CUDA device.
# Usage: scripts/test.sh [release|debug] [extra ctest arguments, e.g. -L unit]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
preset=${1:-release}
shift || true

"$root/scripts/build.sh" "$preset"
cd "$root"
ctest --preset "$preset" --parallel "$(nproc)" "$@"

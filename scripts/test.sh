#!/usr/bin/env bash
# Builds a preset (default: release) and runs the whole test suite with ctest. GPU tests skip
# (and are reported as skipped) on hosts without a CUDA device.
# Usage: scripts/test.sh [release|debug] [extra ctest arguments, e.g. -L unit]
# With exactly `-L unit`, only the unit tests' executables are built (provd_unit_tests): the
# sanitizer pass of CI needs no daemon, client or integration test.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
preset=${1:-release}
shift || true

if [ "$*" = "-L unit" ]; then
  "$root/scripts/build.sh" "$preset" provd_unit_tests
else
  "$root/scripts/build.sh" "$preset"
fi
cd "$root"
ctest --preset "$preset" --parallel "$(nproc)" "$@"

#!/usr/bin/env bash
# Installs the pinned pil-stark and pilcom (package-lock.json) that oracle.js runs; the CTest
# fixture `stark_oracle` calls this. Nothing is installed when node_modules is current.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -f node_modules/pil-stark/package.json ] ||
   [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --silent --no-audit --no-fund
fi
node -e 'require("pil-stark/src/helpers/fft/fft_p"); require("pilcom")'

#!/usr/bin/env bash
# Writes the ffjavascript test vectors into OUT_DIR (the CTest fixture `vectors` calls this).
# Installs the pinned ffjavascript with `npm ci` when needed, and skips the generation when
# OUT_DIR already holds vectors newer than the generator and its lock file.
set -euo pipefail
out=${1:?usage: generate.sh OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
if [ ! -f node_modules/ffjavascript/package.json ] ||
   [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --silent --no-audit --no-fund
fi
if [ -f "$out/meta.json" ] && [ "$out/meta.json" -nt generate.js ] &&
   [ "$out/meta.json" -nt package-lock.json ]; then
  echo "vectors in $out are up to date"
  exit 0
fi
rm -rf "$out.tmp"
node generate.js --out "$out.tmp"
rm -rf "$out"
mv "$out.tmp" "$out"

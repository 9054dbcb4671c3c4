#!/usr/bin/env bash
# Runs the pinned snarkjs (tests/circuits/node_modules, see package-lock.json), never a global
# one: e.g. `tests/circuits/snarkjs.sh groth16 verify vkey.json public.json proof.json`.
# The exit status is snarkjs's own: `groth16 verify` exits 0 and prints "[INFO]  snarkJS: OK!"
# on a valid proof, exits 1 and prints "[ERROR] snarkJS: Invalid proof" (or "Proof commitments
# are not valid." for points off the curve) on an invalid one, and exits 1 on an uncaught error.
# Run tests/circuits/generate.sh (or `npm ci` here) first to install it.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec node "$here/node_modules/snarkjs/build/cli.cjs" "$@"

#!/usr/bin/env bash
# Groth16 verification, provd against snarkjs in the same run on the same files: the fixture
# circuits (tests/circuits/generate.sh) into build/bench-verify/, provd's verify_bench on one
# thread, then snarkjs's groth16.verify in one node process (bench/verify/snarkjs_verify.js).
# Usage: bench/verify/run.sh     (docs/performance.md records the table)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
"$root/scripts/install-deps.sh"
cd "$root"
cmake --preset bench >/dev/null
cmake --build --preset bench --target verify_bench >/dev/null
work="$root/build/bench-verify"
"$root/tests/circuits/generate.sh" "$work/circuits" >/dev/null
echo "== provd (one thread)"
PROVD_THREADS=1 PROVD_BENCH_CIRCUITS="$work/circuits" taskset -c 0 \
  "$root/build/bench/bench/verify_bench" --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true
echo "== snarkjs groth16.verify (ms per call; node, after warm-up)"
for c in mult_bn128 many_public_bn128 mult_bls12381; do
  taskset -c 0 node "$root/bench/verify/snarkjs_verify.js" "$root/tests/circuits/node_modules/snarkjs" \
    "$work/circuits/$c" 30
done

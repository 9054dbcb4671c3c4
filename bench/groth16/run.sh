#!/usr/bin/env bash
# Groth16 proving time and peak memory: provd against snarkjs (`groth16 prove`, the prover
# users start from) on the same zkey and witness, in the same run, for circuits of 2^k
# constraints. Keys are made here, not in the tests: the powers of tau for 2^16 take minutes.
# Everything generated is cached in build/bench-groth16/ (delete it to start over).
#
# Usage: bench/groth16/run.sh [--keys-only] [k ...]      (default: 12 14 16)
# Prints one table row per size; docs/performance.md records the table. --keys-only makes the
# keys and witnesses and stops (no build, no timing): it can run while something else builds.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
keys_only=0
if [ "${1:-}" = --keys-only ]; then
  keys_only=1
  shift
fi
powers=("$@")
[ ${#powers[@]} -gt 0 ] || powers=(12 14 16)

[ $keys_only = 1 ] || "$root/scripts/build.sh" release >/dev/null
[ -x /usr/bin/time ] || { echo "bench/groth16/run.sh: needs GNU time (apt-get install time)" >&2; exit 1; }
(cd "$root/tests/circuits" && { [ -f node_modules/snarkjs/package.json ] || npm ci --silent --no-audit --no-fund; })
snarkjs=(node "$root/tests/circuits/node_modules/snarkjs/build/cli.cjs")
circom=(node "$root/tests/circuits/node_modules/circom2/cli.js")
provd="$root/build/release/daemon/provd"
work="$root/build/bench-groth16"
mkdir -p "$work"

. "$root/bench/common.sh"

[ $keys_only = 1 ] ||
  printf '| constraints | domain | snarkjs s | snarkjs MiB | provd s | provd MiB | speed-up | provd verify (share) |\n'
[ $keys_only = 1 ] || printf '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n'
for k in "${powers[@]}"; do
  dir="$work/k$k"
  mkdir -p "$dir"
  n=$(( (1 << k) - 2 ))  # + 1 public signal + the constant: a domain of exactly 2^k
  if [ ! -f "$dir/circuit.zkey" ]; then
    sed "s/@N@/$n/" "$root/bench/groth16/chain.circom.in" >"$dir/chain.circom"
    quiet "$dir/circom.log" "${circom[@]}" "$dir/chain.circom" --r1cs --wasm --O1 --prime bn128 -o "$dir"
    if [ ! -f "$work/pot$k.ptau" ]; then
      quiet "$dir/ptau.log" "${snarkjs[@]}" powersoftau new bn128 "$k" "$dir/pot0.ptau"
      quiet "$dir/ptau.log" "${snarkjs[@]}" powersoftau beacon "$dir/pot0.ptau" "$dir/pot1.ptau" \
        5eed000000000000000000000000000000000000000000000000000000000001 10
      quiet "$dir/ptau.log" "${snarkjs[@]}" powersoftau prepare phase2 "$dir/pot1.ptau" "$work/pot$k.ptau"
      rm -f "$dir/pot0.ptau" "$dir/pot1.ptau"
    fi
    quiet "$dir/setup.log" "${snarkjs[@]}" groth16 setup "$dir/chain.r1cs" "$work/pot$k.ptau" "$dir/c0.zkey"
    quiet "$dir/setup.log" "${snarkjs[@]}" zkey beacon "$dir/c0.zkey" "$dir/circuit.zkey" \
      5eed000000000000000000000000000000000000000000000000000000000002 10
    quiet "$dir/setup.log" "${snarkjs[@]}" zkey export verificationkey "$dir/circuit.zkey" "$dir/vkey.json"
    echo '{"x": "3", "y": "5"}' >"$dir/input.json"
    quiet "$dir/wtns.log" "${snarkjs[@]}" wtns calculate "$dir/chain_js/chain.wasm" "$dir/input.json" "$dir/witness.wtns"
    rm -f "$dir/c0.zkey"
  fi
  [ $keys_only = 0 ] || continue
  read -r js_s js_mib < <(measure "$dir/snarkjs" "${snarkjs[@]}" groth16 prove "$dir/circuit.zkey" \
    "$dir/witness.wtns" "$dir/snarkjs_proof.json" "$dir/snarkjs_public.json")
  read -r pd_s pd_mib < <(measure "$dir/provd" "$provd" prove --zkey "$dir/circuit.zkey" \
    --witness "$dir/witness.wtns" --proof-out "$dir/provd_proof.json" \
    --public-out "$dir/provd_public.json" --verbose)
  for who in snarkjs provd; do  # a benchmark of a wrong proof is worth nothing
    quiet "$dir/verify.log" "${snarkjs[@]}" groth16 verify "$dir/vkey.json" \
      "$dir/${who}_public.json" "$dir/${who}_proof.json"
  done
  # provd verifies its proof before writing it; its share of provd's time, from --verbose.
  verify_ms=$(sed -n 's/.*verified in \([0-9.]*\) ms.*/\1/p' "$dir/provd.log")
  awk -v k="$k" -v js="$js_s" -v jm="$js_mib" -v pd="$pd_s" -v pm="$pd_mib" -v vm="${verify_ms:-0}" \
    'BEGIN { printf "| 2^%d | 2^%d | %s | %s | %s | %s | %.1fx | %.2f ms (%.2f%%) |\n", k, k, js, jm, pd, pm, js / pd, vm, vm / 10 / pd }'

done

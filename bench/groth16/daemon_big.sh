#!/usr/bin/env bash
# A big circuit through the daemon, the way a user with one would do it: the key uploaded with
# `provctl keys put`, the witness (2^22: 134 MB, over the 128 MiB message limit) submitted once by
# stream (`provctl submit --witness`, which uploads it) and once by reference (`--witness-name`),
# both proofs checked with `snarkjs groth16 verify`; then the same job on a daemon whose memory
# budget is too small, which must refuse it with RESOURCE_EXHAUSTED.
# Needs the inputs of bench/groth16/scaling.sh for that size (run it first).
#
# Usage: bench/groth16/daemon_big.sh [k]   (default 22)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
k=${1:-22}
case_dir="$root/build/bench-scaling/bn128/k$k"
[ -f "$case_dir/circuit.zkey" ] || { echo "run bench/groth16/scaling.sh $k first" >&2; exit 1; }
provd="$root/build/release/daemon/provd"
provctl="$root/build/release/client/provctl"
snarkjs="$root/tests/circuits/snarkjs.sh"
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

start() {  # start [serve flags...]: a daemon on a free port, its address in $addr
  rm -f "$work/ready.json"
  "$provd" serve --data-dir "$work/data" --listen 127.0.0.1:0 --metrics-listen "" \
    --lock-dir "$work/locks" --ready-file "$work/ready.json" "$@" >>"$work/daemon.log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do [ -s "$work/ready.json" ] && break; sleep 0.1; done
  addr=$(node -e 'console.log(require(process.argv[1]).grpc)' "$work/ready.json")
}
timed() {  # timed WHAT CMD...
  local what=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  "$@" >"$work/$what.log" 2>&1 || { cat "$work/$what.log" >&2; echo "failed: $what" >&2; exit 1; }
  t1=$(date +%s.%N)
  awk -v w="$what" -v a="$t0" -v b="$t1" 'BEGIN { printf "%s: %.1f s\n", w, b - a }'
}

mkdir -p "$work/data/keys" "$work/data/inputs"
start
echo "2^$k: zkey $(stat -c %s "$case_dir/circuit.zkey") bytes, witness $(stat -c %s "$case_dir/witness.wtns") bytes"
timed "keys put" "$provctl" --addr "$addr" keys put "$case_dir/circuit.zkey" --name big.zkey
timed "submit by stream (upload + proof)" "$provctl" --addr "$addr" submit --zkey big.zkey \
  --witness "$case_dir/witness.wtns" --wait --proof-out "$work/p1.json" --public-out "$work/s1.json"
name=$("$provctl" --addr "$addr" inputs list | awk 'NR == 2 { print $1 }')
timed "submit by reference" "$provctl" --addr "$addr" submit --zkey big.zkey \
  --witness-name "$name" --wait --proof-out "$work/p2.json" --public-out "$work/s2.json"
for i in 1 2; do
  "$snarkjs" groth16 verify "$case_dir/vkey.json" "$work/s$i.json" "$work/p$i.json" >"$work/v$i.log" ||
    { cat "$work/v$i.log" >&2; exit 1; }
done
echo "both proofs: snarkjs OK"
kill "$pid"
wait "$pid" 2>/dev/null || true
start --memory-budget-bytes $(( $(stat -c %s "$case_dir/circuit.zkey") + (64 << 20) ))
if "$provctl" --addr "$addr" submit --zkey big.zkey --witness-name "$name" >"$work/refused.log" 2>&1; then
  echo "the over-budget job was accepted" >&2
  exit 1
fi
grep -o 'RESOURCE_EXHAUSTED: .*' "$work/refused.log"

#!/usr/bin/env bash
# Builds provd and runs the sample end to end:
#  1. makes sample Groth16 circuits with circom2 + snarkjs (tests/circuits/generate.sh, cached
#     in build/sample-circuits): a Poseidon hash over bn128 and a multiplier chain over
#     bls12381;
#  2. starts `provd serve` on its embedded defaults (gRPC on 127.0.0.1:50051, metrics on
#     127.0.0.1:9464), with its data dir under build/sample-data and the sample keys in its key
#     dir;
#  3. submits each sample as a Groth16 job with `provctl submit --wait`, which follows the
#     job's events and writes proof.json and public.json, and verifies both proofs with
#     `snarkjs groth16 verify`;
#  4. proves one sample once more without the daemon (`provd prove`), and stops the daemon with
#     SIGTERM.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" release
bin="$root/build/release"
samples="$root/build/sample-circuits"
data="$root/build/sample-data"

work=$(mktemp -d)
daemon_pid=
cleanup() {
  if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then kill -TERM "$daemon_pid"; fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "== sample circuits (circom2 + snarkjs; cached in build/sample-circuits)"
"$root/tests/circuits/generate.sh" "$samples"
mkdir -p "$data/keys"
cp "$samples/poseidon_bn128/circuit.zkey" "$data/keys/poseidon_bn128.zkey"
cp "$samples/mult_bls12381/circuit.zkey" "$data/keys/mult_bls12381.zkey"

echo "== provd serve (data dir $data)"
"$bin/daemon/provd" serve --data-dir "$data" --ready-file "$work/ready.json" 2>"$data/provd.log" &
daemon_pid=$!
for _ in $(seq 100); do
  [ -s "$work/ready.json" ] && break
  if ! kill -0 "$daemon_pid" 2>/dev/null; then
    cat "$data/provd.log" >&2
    echo "run-sample: provd exited early (is 127.0.0.1:50051 or :9464 in use?)" >&2
    exit 1
  fi
  sleep 0.1
done
[ -s "$work/ready.json" ] || { echo "run-sample: provd did not become ready" >&2; exit 1; }

provctl=("$bin/client/provctl" --addr 127.0.0.1:50051)
echo "== provctl health"
"${provctl[@]}" health
for sample in poseidon_bn128 mult_bls12381; do
  echo "== provctl submit --wait $sample.zkey (high priority)"
  "${provctl[@]}" submit --zkey "$sample.zkey" --witness "$samples/$sample/witness.wtns" \
    --priority high --wait --proof-out "$work/$sample.proof.json" \
    --public-out "$work/$sample.public.json"
  echo "== snarkjs groth16 verify $sample"
  "$root/tests/circuits/snarkjs.sh" groth16 verify "$samples/$sample/vkey.json" \
    "$work/$sample.public.json" "$work/$sample.proof.json"
  echo "== provd verify $sample (provd's own verifier, key straight from the zkey)"
  "$bin/daemon/provd" verify --zkey "$samples/$sample/circuit.zkey" \
    --proof "$work/$sample.proof.json" --public "$work/$sample.public.json"
done
echo "== provctl list"
"${provctl[@]}" list

echo "== provd prove (one-shot, no daemon) poseidon_bn128"
"$bin/daemon/provd" prove --zkey "$samples/poseidon_bn128/circuit.zkey" \
  --witness "$samples/poseidon_bn128/witness.wtns" \
  --proof-out "$work/oneshot.proof.json" --public-out "$work/oneshot.public.json"
"$root/tests/circuits/snarkjs.sh" groth16 verify "$samples/poseidon_bn128/vkey.json" \
  "$work/oneshot.public.json" "$work/oneshot.proof.json"

echo "== stopping provd (SIGTERM)"
kill -TERM "$daemon_pid"
wait "$daemon_pid"
daemon_pid=
echo "run-sample: OK (the daemon's log is $data/provd.log; its jobs stay in $data)"

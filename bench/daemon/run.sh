#!/usr/bin/env bash
# What the daemon adds around a proof, and what a low-priority backlog costs a high-priority job:
# starts `provd serve` on loopback with a throwaway data and key directory and drives it with
# bench/daemon/daemon_load.cpp.
#   1. mult_bn128 (20 constraints, so that the API, the store and the events are much of each
#      job), CPU only, --cpu-workers 2: `latency` (one job at a time), then `throughput`
#      (8 client threads submitting 400 jobs at once).
#   2. poseidon_bn128 (240 constraints) on a fresh daemon with one simulated GPU
#      (--simulated-gpus 1 --cpu-workers 1): `priority`, high-priority jobs alone and then with
#      20 low-priority jobs queued.
# Each mode prints a markdown table and one JSON line; docs/performance.md records them.
#
# Usage: bench/daemon/run.sh              (under a minute on 2 cores once built)
# Environment:
#   PROVD_BENCH_BUILD_DIR  a build directory configured with -DPROVD_BUILD_BENCHMARKS=ON; only
#                          the targets needed are built there (default: the `bench` preset in
#                          build/bench, configured on first use)
#   PROVD_BINARY           the provd to start (default: daemon/provd of that build directory,
#                          then built too). It is copied first, so a rebuild meanwhile is harmless.
#   LATENCY_JOBS (100), THROUGHPUT_JOBS (400), THROUGHPUT_THREADS (8), PRIORITY_REPS (50),
#   BACKLOG (20), GPU_LATENCY_MS (5): the counts and the simulated GPU's latency per call.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
latency_jobs=${LATENCY_JOBS:-100}
throughput_jobs=${THROUGHPUT_JOBS:-400}
throughput_threads=${THROUGHPUT_THREADS:-8}
priority_reps=${PRIORITY_REPS:-50}
backlog=${BACKLOG:-20}
gpu_latency_ms=${GPU_LATENCY_MS:-5}

work=$(mktemp -d)
daemon_pid=
cleanup() {
  if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then
    kill -TERM "$daemon_pid"
    wait "$daemon_pid" || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

quiet() {  # quiet LOG CMD...: run CMD, show its output only on failure
  local log=$1
  shift
  "$@" >"$log" 2>&1 || { cat "$log" >&2; echo "bench/daemon/run.sh: failed: $*" >&2; exit 1; }
}

build=${PROVD_BENCH_BUILD_DIR:-$root/build/bench}
targets=(daemon_load)
[ -n "${PROVD_BINARY:-}" ] || targets+=(provd)
if [ -z "${PROVD_BENCH_BUILD_DIR:-}" ] && [ ! -f "$build/CMakeCache.txt" ]; then
  (cd "$root" && quiet "$work/configure.log" cmake --preset bench)
fi
quiet "$work/build.log" cmake --build "$build" --target "${targets[@]}"
build=$(cd "$build" && pwd)
cp "${PROVD_BINARY:-$build/daemon/provd}" "$work/provd"
provd=$work/provd
load=$build/bench/daemon_load

samples=$root/build/sample-circuits
quiet "$work/circuits.log" "$root/tests/circuits/generate.sh" "$samples"
mkdir -p "$work/keys"
cp "$samples/mult_bn128/circuit.zkey" "$work/keys/mult.zkey"
cp "$samples/poseidon_bn128/circuit.zkey" "$work/keys/poseidon.zkey"

addr=
start_daemon() {  # start_daemon NAME FLAGS...: a fresh daemon with its own data dir; sets $addr
  local name=$1
  shift
  # Its own lock directory: the simulated GPU must not be shared with other provd on the host.
  "$provd" serve --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 --data-dir "$work/$name" \
    --key-dir "$work/keys" --lock-dir "$work/locks" --ready-file "$work/$name.ready" "$@" \
    2>"$work/$name.log" &
  daemon_pid=$!
  for _ in $(seq 300); do
    [ -s "$work/$name.ready" ] && break
    kill -0 "$daemon_pid" 2>/dev/null ||
      { cat "$work/$name.log" >&2; echo "bench/daemon/run.sh: provd exited" >&2; exit 1; }
    sleep 0.1
  done
  addr=$(sed -n 's/.*"grpc": *"\([^"]*\)".*/\1/p' "$work/$name.ready")
  [ -n "$addr" ] || { echo "bench/daemon/run.sh: provd did not become ready" >&2; exit 1; }
}
stop_daemon() {  # SIGTERM, as an operator stops it; it must exit cleanly
  local name=$1
  local rc=0
  kill -TERM "$daemon_pid"
  wait "$daemon_pid" || rc=$?
  daemon_pid=
  [ "$rc" = 0 ] ||
    { tail -20 "$work/$name.log" >&2; echo "bench/daemon/run.sh: provd exited $rc" >&2; exit 1; }
}
drive() {  # drive NAME ARGS...: daemon_load against the running daemon; its log on failure
  local name=$1
  shift
  "$load" --addr "$addr" "$@" || { tail -20 "$work/$name.log" >&2; exit 1; }
}

echo "provd: $("$provd" version | head -1); $(nproc) cores; $(date -u +%Y-%m-%dT%H:%MZ)"
echo
start_daemon tiny --cpu-workers 2
drive tiny --zkey mult.zkey --witness "$samples/mult_bn128/witness.wtns" latency \
  --jobs "$latency_jobs"
drive tiny --zkey mult.zkey --witness "$samples/mult_bn128/witness.wtns" throughput \
  --threads "$throughput_threads" --jobs "$throughput_jobs"
stop_daemon tiny

echo "daemon: --simulated-gpus 1 --simulated-gpu-latency-ms $gpu_latency_ms --cpu-workers 1"
start_daemon priority --simulated-gpus 1 --simulated-gpu-latency-ms "$gpu_latency_ms" \
  --cpu-workers 1
drive priority --zkey poseidon.zkey --witness "$samples/poseidon_bn128/witness.wtns" priority \
  --repetitions "$priority_reps" --backlog "$backlog"
stop_daemon priority

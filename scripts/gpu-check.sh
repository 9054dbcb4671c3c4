#!/usr/bin/env bash
# The GPU checks of the CUDA backend, for a device machine (see docs/gpu.md). Such a machine has
# CUDA and a driver but none of provd's other dependencies and no network, so the binaries are
# built here and travel with the shared libraries they need.
#
#   scripts/gpu-check.sh bundle        here: builds the GPU tests, gpu_bench and provd for sm_90
#                                      (build/gpu-check) and packs them, their libraries and the
#                                      circuit fixtures into build/gpu-bundle.tar.gz (about 36 MiB:
#                                      carry that path)
#   scripts/gpu-check.sh run OUT_DIR   there: self-test, GPU tests, a GPU proof checked against the
#                                      CPU's bytes, the benchmarks; report in OUT_DIR/report.txt
#
# The run takes about 5 minutes on an H200 (most of it the CPU side of the benchmarks) and stops
# itself at 8.
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}

bundle() {
  set -e
  scripts/install-deps.sh >/dev/null
  local build=build/gpu-check out=build/gpu-bundle
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPROVD_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DPROVD_BUILD_TESTS=ON -DPROVD_BUILD_BENCHMARKS=ON >/dev/null
  cmake --build "$build" --target kernels_self_test_gpu kernels_cuda_gpu_test \
    kernels_cuda_groth16_test gpu_bench provd
  rm -rf "$out" && mkdir -p "$out/bin" "$out/lib" "$out/circuits"
  local bins=("$build/tests/gpu/kernels_self_test_gpu" "$build/tests/gpu/kernels_cuda_gpu_test"
    "$build/tests/gpu/kernels_cuda_groth16_test" "$build/bench/gpu_bench" "$build/daemon/provd")
  cp "${bins[@]}" "$out/bin/"
  strip "$out"/bin/*
  # Every shared library but glibc's own (the machine's glibc is as new or newer).
  ldd "${bins[@]}" | awk '/=> \//{print $3}' | sort -u |
    grep -vE '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*)\.so' |
    while read -r lib; do cp -L "$lib" "$out/lib/"; done
  tests/circuits/generate.sh "$build/test-circuits" >/dev/null
  cp -r "$build/test-circuits/." "$out/circuits/"
  rm -rf "$out/circuits/ptau"
  tar -C build -czf "$out.tar.gz" gpu-bundle
  du -sh "$out.tar.gz"
}

run() {
  local out=${1:?usage: scripts/gpu-check.sh run OUT_DIR}
  local b=build/gpu-bundle
  mkdir -p "$out"
  if [[ ! -d $b ]]; then
    tar -C build -xzf "$b.tar.gz" || { echo "no $b.tar.gz: run 'bundle' first and carry it"; return 2; }
  fi
  local report="$out/report.txt"
  export LD_LIBRARY_PATH="$PWD/$b/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export PROVD_CIRCUITS_DIR="$PWD/$b/circuits"
  local deadline=$((SECONDS + 480)) failed=0
  step() {  # step NAME SECONDS COMMAND...: runs with a timeout and logs into the report
    local name=$1 limit=$2
    shift 2
    local left=$((deadline - SECONDS))
    ((left < limit)) && limit=$left
    if ((limit <= 0)); then
      echo "== $name: SKIPPED (out of time)" | tee -a "$report"
      failed=1
      return
    fi
    echo "== $name" | tee -a "$report"
    timeout "$limit" "$@" 2>&1 | tee -a "$report" "$out/$name.log" >/dev/null
    local rc=${PIPESTATUS[0]}
    echo "== $name: exit $rc" | tee -a "$report"
    ((rc != 0)) && failed=1
  }
  { date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } >"$report" 2>&1
  step self_test 60 "$b/bin/kernels_self_test_gpu"
  step kernels 240 "$b/bin/kernels_cuda_gpu_test"
  # snarkjs (node) is not on device machines: bytes equal to the CPU proof's, which snarkjs
  # accepts in CI, stand for it.
  step groth16 120 "$b/bin/kernels_cuda_groth16_test" --gtest_filter=-*Snarkjs*
  local k=$b/circuits/poseidon_bn128
  step prove_gpu 60 "$b/bin/provd" prove --backend gpu --verbose --seed 01 --zkey "$k/circuit.zkey" \
    --witness "$k/witness.wtns" --proof-out "$out/proof_gpu.json" --public-out "$out/public.json" \
    --lock-dir "$out/locks"
  step prove_cpu 60 "$b/bin/provd" prove --backend cpu --seed 01 --zkey "$k/circuit.zkey" \
    --witness "$k/witness.wtns" --proof-out "$out/proof_cpu.json" --public-out "$out/public.json"
  step same_proof 5 cmp "$out/proof_gpu.json" "$out/proof_cpu.json"
  step bench 200 "$b/bin/gpu_bench" --benchmark_min_time=0.3
  echo "overall: $([[ $failed == 0 ]] && echo PASS || echo FAIL)" | tee -a "$report"
  return $failed
}

case "$mode" in
  bundle) bundle ;;
  run) shift; run "$@" ;;
  *) sed -n 2,14p "$0"; exit 2 ;;
esac

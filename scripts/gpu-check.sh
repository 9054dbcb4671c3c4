#!/usr/bin/env bash
# The GPU checks of the CUDA backend, for a device machine (see docs/gpu.md). Such a machine has
# CUDA and a driver but none of provd's other dependencies and no network, so the binaries are
# built here and travel with the shared libraries they need.
#
#   scripts/gpu-check.sh bundle        here: builds the GPU tests, gpu_bench and provd for sm_90
#                                      (build/gpu-check) and packs them, their libraries and the
#                                      circuit fixtures (and bench/groth16's 2^14 key when it
#                                      exists) into build/gpu-bundle.tar.gz (about 53 MiB: carry
#                                      that path)
#   scripts/gpu-check.sh run OUT_DIR   there: self-test, GPU tests, GPU proofs checked against the
#                                      CPU's bytes, the benchmarks; report in OUT_DIR/report.txt
#   scripts/gpu-check.sh bundle-groth16 [KEY_DIR] / run-groth16 OUT_DIR
#                                      the Groth16 GPU/CPU split at 2^16 constraints (below)
#
# The run stops itself after GPU_CHECK_SECONDS (default 480); each step has its own cap too, so
# one that hangs costs its cap, not the run. The GPU benchmarks run before their CPU peers so a
# short run still brings the GPU figures back.
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}

bundle() {
  set -e
  scripts/install-deps.sh >/dev/null
  local build=build/gpu-check out=build/gpu-bundle
  # The PTX field product is on here (GPU_CHECK_PTX_MONT_MUL=OFF for the 64-bit limbs): the
  # device run is where it is proven before it becomes the build's default (docs/gpu.md).
  local ptx_mont_mul=${GPU_CHECK_PTX_MONT_MUL:-ON}
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPROVD_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DPROVD_BUILD_TESTS=ON -DPROVD_BUILD_BENCHMARKS=ON \
    -DPROVD_CUDA_PTX_MONT_MUL="$ptx_mont_mul" >/dev/null
  cmake --build "$build" --target kernels_self_test_gpu kernels_cuda_gpu_test \
    kernels_cuda_groth16_test gpu_bench provd
  rm -rf "$out" && mkdir -p "$out/bin" "$out/lib" "$out/circuits"
  local bins=("$build/tests/gpu/kernels_self_test_gpu" "$build/tests/gpu/kernels_cuda_gpu_test"
    "$build/tests/gpu/kernels_cuda_groth16_test" "$build/bench/gpu_bench" "$build/daemon/provd")
  cp "${bins[@]}" "$out/bin/"
  # gpu_bench once more with the other field product (GPU_CHECK_AB=0 skips it): the run then
  # measures the MSMs with both products in one session, which is what decides the default.
  local alt_ptx=$([[ $ptx_mont_mul == ON ]] && echo OFF || echo ON)
  if [[ ${GPU_CHECK_AB:-1} != 0 ]]; then
    cmake -S . -B "$build-alt" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPROVD_CUDA=ON \
      -DCMAKE_CUDA_ARCHITECTURES=90 -DPROVD_BUILD_TESTS=OFF -DPROVD_BUILD_BENCHMARKS=ON \
      -DPROVD_CUDA_PTX_MONT_MUL="$alt_ptx" >/dev/null
    cmake --build "$build-alt" --target gpu_bench
    cp "$build-alt/bench/gpu_bench" "$out/bin/gpu_bench_alt"
  fi
  strip "$out"/bin/*
  {
    echo "commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' + local changes')," \
      "PROVD_CUDA_PTX_MONT_MUL=$ptx_mont_mul"
    [[ ${GPU_CHECK_AB:-1} == 0 ]] || echo "gpu_bench_alt: PROVD_CUDA_PTX_MONT_MUL=$alt_ptx"
  } >"$out/build-info.txt"
  # Every shared library but glibc's own (the machine's glibc is as new or newer).
  ldd "${bins[@]}" | awk '/=> \//{print $3}' | sort -u |
    grep -vE '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*)\.so' |
    while read -r lib; do cp -L "$lib" "$out/lib/"; done
  tests/circuits/generate.sh "$build/test-circuits" >/dev/null
  cp -r "$build/test-circuits/." "$out/circuits/"
  rm -rf "$out/circuits/ptau"
  # A larger proof for the GPU/CPU split, when bench/groth16/run.sh has made its keys (2^14
  # constraints: 9 MiB; 2^16 would not fit in what a device call carries).
  local big=${GPU_CHECK_GROTH16:-build/bench-groth16/k14}
  if [[ -f $big/circuit.zkey ]]; then
    mkdir -p "$out/groth16" && cp "$big/circuit.zkey" "$big/witness.wtns" "$out/groth16/"
  fi
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
  local deadline=$((SECONDS + ${GPU_CHECK_SECONDS:-480})) failed=0
  # At most 8 files come back from a device machine: the report (every step's output) and the
  # benchmarks' JSON; proofs and lock files stay in a scratch folder.
  local work
  work=$(mktemp -d)
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
    echo "== $name (cap ${limit}s)" | tee -a "$report"
    local start=$SECONDS
    timeout "$limit" "$@" 2>&1 | tee -a "$report" >/dev/null
    local rc=${PIPESTATUS[0]}
    echo "== $name: exit $rc after $((SECONDS - start))s" | tee -a "$report"
    ((rc != 0)) && failed=1
  }
  { date -u; cat "$b/build-info.txt"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv; } \
    >"$report" 2>&1
  local kt=$b/bin/kernels_cuda_gpu_test
  step self_test 60 "$b/bin/kernels_self_test_gpu"
  step field_ops 40 "$kt" --gtest_filter='CudaFieldTest*:CudaProductFormTest*'
  step msm 90 "$kt" --gtest_filter='CudaMsmTest*:CudaMsmBudgetTest*'
  step ntt 90 "$kt" --gtest_filter='CudaNttTest*:CudaNttBudgetTest*'
  step session 40 "$kt" --gtest_filter='CudaSessionTest*'
  # snarkjs (node) is not on device machines: bytes equal to the CPU proof's, which snarkjs
  # accepts in CI, stand for it.
  step groth16 120 "$b/bin/kernels_cuda_groth16_test" --gtest_filter=-*Snarkjs*
  local k=$b/circuits/poseidon_bn128
  step prove_gpu 60 "$b/bin/provd" prove --backend gpu --verbose --seed 01 --zkey "$k/circuit.zkey" \
    --witness "$k/witness.wtns" --proof-out "$work/proof_gpu.json" \
    --public-out "$work/public.json" --lock-dir "$work/locks"
  step prove_cpu 60 "$b/bin/provd" prove --backend cpu --seed 01 --zkey "$k/circuit.zkey" \
    --witness "$k/witness.wtns" --proof-out "$work/proof_cpu.json" --public-out "$work/public.json"
  step same_proof 5 cmp "$work/proof_gpu.json" "$work/proof_cpu.json"
  # A lost device (injected: every 3rd call fails as after a sticky error): the proof retires
  # the GPU, finishes on the CPU and still has the CPU's bytes.
  step prove_gpu_lost 60 env PROVD_CUDA_FAULT_EVERY=3 PROVD_CUDA_FAULT_KIND=lost "$b/bin/provd" \
    prove --backend gpu --seed 01 --zkey "$k/circuit.zkey" --witness "$k/witness.wtns" \
    --proof-out "$work/proof_lost.json" --public-out "$work/public.json" --lock-dir "$work/locks"
  step same_proof_lost 5 cmp "$work/proof_lost.json" "$work/proof_cpu.json"
  step lost_was_retired 5 grep -q "unusable by this process and retired" "$report"
  if [[ -f $b/groth16/circuit.zkey ]]; then
    local g=$b/groth16
    step prove_big_gpu 60 "$b/bin/provd" prove --backend gpu --verbose --seed 02 \
      --zkey "$g/circuit.zkey" --witness "$g/witness.wtns" --proof-out "$work/big_gpu.json" \
      --public-out "$work/big_public.json" --lock-dir "$work/locks"
    step prove_big_cpu 60 "$b/bin/provd" prove --backend cpu --verbose --seed 02 \
      --zkey "$g/circuit.zkey" --witness "$g/witness.wtns" --proof-out "$work/big_cpu.json" \
      --public-out "$work/big_public.json"
    step same_big_proof 5 cmp "$work/big_gpu.json" "$work/big_cpu.json"
  fi
  # GPU_CHECK_BENCH replaces the GPU benchmarks' filter (e.g. 'BM_Msm<.*/1/real_time', or
  # BM_MsmTuning for the window and sub-run sweep); GPU_CHECK_CPU_BENCH=0 skips the CPU's.
  step bench_gpu 150 "$b/bin/gpu_bench" --benchmark_min_time=0.3 \
    --benchmark_filter="${GPU_CHECK_BENCH:-/1/real_time}" \
    --benchmark_out="$out/bench_gpu.json"
  # The same MSMs with the other field product (build-info.txt says which is which).
  [[ -x $b/bin/gpu_bench_alt ]] &&
    step bench_gpu_alt 60 "$b/bin/gpu_bench_alt" --benchmark_min_time=0.3 \
      --benchmark_filter='BM_Msm<.*>/(16|20)/1/real_time' --benchmark_out="$out/bench_gpu_alt.json"
  step msm_large 60 "$kt" --gtest_filter='CudaMsmLargeTest*:CudaNttLargeTest*'
  [[ ${GPU_CHECK_CPU_BENCH:-1} == 0 ]] ||
    step bench_cpu 120 "$b/bin/gpu_bench" --benchmark_min_time=0.3 --benchmark_filter=/0/real_time \
    --benchmark_out="$out/bench_cpu.json"
  rm -rf "$work"
  echo "overall: $([[ $failed == 0 ]] && echo PASS || echo FAIL)" | tee -a "$report"
  return $failed
}

# The Groth16 GPU/CPU split at a size whose key does not fit beside the full bundle: provd, its
# libraries and one bench/groth16 key (2^16 constraints: 36 MiB) in build/gpu-groth16.tar.gz.
bundle_groth16() {
  set -e
  local keys=${1:-build/bench-groth16/k16} build=build/gpu-check out=build/gpu-groth16
  [[ -f $keys/circuit.zkey ]] || { echo "no $keys/circuit.zkey: bench/groth16/run.sh --keys-only 16"; return 2; }
  cmake --build "$build" --target provd
  rm -rf "$out" && mkdir -p "$out/bin" "$out/lib"
  cp "$build/daemon/provd" "$out/bin/" && strip "$out/bin/provd"
  ldd "$build/daemon/provd" | awk '/=> \//{print $3}' | sort -u |
    grep -vE '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*)\.so' |
    while read -r lib; do cp -L "$lib" "$out/lib/"; done
  cp "$keys/circuit.zkey" "$keys/witness.wtns" "$out/"
  tar -C build -czf "$out.tar.gz" gpu-groth16
  du -sh "$out.tar.gz"
}

# Two GPU proofs, one with every kernel loaded at start (CUDA_MODULE_LOADING=EAGER), two CPU
# proofs, and the GPU proof's bytes against the CPU's; report in OUT_DIR/groth16.txt.
run_groth16() {
  local out=${1:?usage: scripts/gpu-check.sh run-groth16 OUT_DIR} b=build/gpu-groth16
  [[ -d $b ]] || tar -C build -xzf "$b.tar.gz" || return 2
  export LD_LIBRARY_PATH="$PWD/$b/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  local work report=$out/groth16.txt failed=0
  work=$(mktemp -d)
  mkdir -p "$out"
  prove() {  # prove NAME BACKEND [ENV...]
    local name=$1 backend=$2
    shift 2
    echo "== $name ($backend $*)" | tee -a "$report"
    env "$@" timeout 120 "$b/bin/provd" prove --backend "$backend" --verbose --seed 03 \
      --zkey "$b/circuit.zkey" --witness "$b/witness.wtns" --proof-out "$work/$name.json" \
      --public-out "$work/public.json" --lock-dir "$work/locks" 2>&1 | tee -a "$report" >/dev/null
    ((PIPESTATUS[0] == 0)) || failed=1
    nvidia-smi --query-gpu=clocks.sm --format=csv,noheader >>"$report" 2>&1
  }
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >"$report" 2>&1
  prove gpu1 gpu
  prove gpu2 gpu
  prove gpu_eager gpu CUDA_MODULE_LOADING=EAGER
  prove cpu1 cpu
  prove cpu2 cpu
  for name in gpu1 gpu2 gpu_eager; do
    cmp "$work/$name.json" "$work/cpu1.json" >>"$report" 2>&1 || failed=1
  done
  echo "overall: $([[ $failed == 0 ]] && echo PASS || echo FAIL)" | tee -a "$report"
  rm -rf "$work"
  return $failed
}

case "$mode" in
  bundle) bundle ;;
  run) shift; run "$@" ;;
  bundle-groth16) shift; bundle_groth16 "$@" ;;
  run-groth16) shift; run_groth16 "$@" ;;
  *) sed -n 2,18p "$0"; exit 2 ;;
esac

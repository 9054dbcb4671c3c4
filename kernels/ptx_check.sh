#!/usr/bin/env bash
# Compiles the kernels to PTX and fails if any of provd's own kernels contains a `trap`.
#
# Why: device code runs prover_core's constexpr host code (nvcc --expt-relaxed-constexpr), and
# where that code refers to something the device cannot reach (a host static constexpr object by
# reference, a host-only function), nvcc does not always reject it: it may compile the path into
# `trap;`, a kernel that aborts at run time. CI has no GPU to notice, so CI reads the PTX.
# CUB's own kernels are not checked (their traps are deliberate).
#
# Usage: kernels/ptx_check.sh NVCC SOURCE_DIR OUT_DIR [ARCH [NVCC_FLAG...]]
#   (e.g. -DPROVD_CUDA_PTX_MONT_MUL to check that build's field products)
set -euo pipefail
nvcc=$1
src=$2
out=$3
arch=${4:-sm_90}
shift $(($# < 4 ? $# : 4))
extra=("$@")
mkdir -p "$out"
status=0
for cu in msm_bn254.cu msm_bls12_381.cu ntt_kernels.cu field_ops.cu self_test.cu; do
  ptx="$out/${cu%.cu}.ptx"
  "$nvcc" -std=c++20 --expt-relaxed-constexpr -O3 -arch="$arch" -I"$src" "${extra[@]}" -ptx \
    "$src/kernels/$cu" -o "$ptx"
  # Split the PTX into functions; report provd functions (mangled _ZN5provd) that trap.
  bad=$(awk '
    /^(\.visible |\.weak |\.extern )*\.(entry|func) / { name = $0 }
    /^[ \t]*trap;/ { if (name ~ /_ZN5provd/) print name }
  ' "$ptx" | sort -u)
  n=$(grep -cE "^(\.visible )?\.entry _ZN5provd" "$ptx" || true)
  if [[ -n "$bad" ]]; then
    echo "FAIL $cu: provd device code that traps (a host-only reference compiled away?):"
    echo "$bad" | sed 's/^/  /'
    status=1
  elif [[ "$n" -eq 0 ]]; then
    echo "FAIL $cu: no provd kernels in the PTX"
    status=1
  else
    echo "ok   $cu: $n provd kernels, no trap"
  fi
done
exit $status

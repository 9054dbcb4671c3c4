#!/usr/bin/env bash
# Compiles the kernels to PTX and fails if any of provd's own kernels contains a `trap`, or if
# any carry-flag reader in the PTX reads a flag it did not write.
#
# Why traps: device code runs prover_core's constexpr host code (nvcc --expt-relaxed-constexpr),
# and where that code refers to something the device cannot reach (a host static constexpr
# object by reference, a host-only function), nvcc does not always reject it: it may compile the
# path into `trap;`, a kernel that aborts at run time. CI has no GPU to notice, so CI reads the
# PTX. CUB's own kernels are not checked (their traps are deliberate).
#
# Why carries: the PTX field product (prover_core/field/ptx_carry_chain.hpp) carries CC.CF from
# one inline asm statement to the next, and the compiler emits flag-writing add.cc/addc pairs of
# its own (unsigned __int128 arithmetic). Nothing in the language stops it from scheduling one of
# its pairs between two of ours, or ours between two of its. So every reader (addc, subc, madc)
# must find the flag written by the same side (inline asm or compiler), in the same basic block.
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
# Prints "function: line N: ..." for every carry-flag reader whose flag was written by the other
# side, by nothing, or before a label or branch.
carry_scan='
/^(\.visible |\.weak |\.extern )*\.(entry|func) / { name = $0; writer = ""; crossed = 0; next }
/\/\/ begin inline asm/ { in_asm = 1; next }
/\/\/ end inline asm/ { in_asm = 0; next }
/^[ \t]*\$[A-Za-z0-9_]+:/ { crossed = 1; next }
/^[ \t]*[@a-z]/ {
  line = $0
  sub(/^[ \t]+/, "", line)
  if (line ~ /^@/) sub(/^@[^ \t]+[ \t]+/, "", line)
  split(line, parts, /[ \t]+/)
  op = parts[1]
  if (op ~ /^(bra|brx|ret|call|exit)/) { crossed = 1; next }
  side = in_asm ? "asm" : "compiler"
  if (op ~ /^(addc|subc|madc)/ && (writer != side || crossed)) {
    print name ": line " NR ": " op " (" side ") reads a flag written by " \
          (writer == "" ? "nothing" : writer) (crossed ? " before a branch or label" : "")
  }
  if (op ~ /\.cc(\.|$)/) { writer = side; crossed = 0 }
}'
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
  carries=$(awk "$carry_scan" "$ptx")
  if [[ -n "$carries" ]]; then
    echo "FAIL $cu: a carry flag read across inline asm and compiled code:"
    echo "$carries" | sed -n '1,5s/^/  /p'
    status=1
  elif [[ -n "$bad" ]]; then
    echo "FAIL $cu: provd device code that traps (a host-only reference compiled away?):"
    echo "$bad" | sed 's/^/  /'
    status=1
  elif [[ "$n" -eq 0 ]]; then
    echo "FAIL $cu: no provd kernels in the PTX"
    status=1
  else
    echo "ok   $cu: $n provd kernels, no trap, carry flags read where written"
  fi
done
exit $status

#!/usr/bin/env bash
# provd's trace commitment against pil-stark's (the pinned one of tests/stark) on the same
# random traces in the same run: wall time and peak RSS of each process, the ratio, and whether
# the roots are byte-identical. Then the large shape of the issue (2^20 rows x 32 columns,
# blowup 2) for provd alone, with the memory it is allowed (extended trace + tree).
# Usage: bench/stark/run.sh [--quick]   (--quick: small shapes, a smoke run)
# The figures go into docs/performance.md. Needs /usr/bin/time (Debian's `time` package).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
"$root/scripts/build.sh" release provd >/dev/null
tests/stark/setup.sh >/dev/null
provd="$root/build/release/daemon/provd"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# "n_bits n_cols blowup_bits [bn128]" compared with pil-stark (bn128: MerkleHashBN128 of arity
# 16, whose pil-stark runs a wasm Poseidon: a smaller shape), then provd alone.
compared=("16 16 2" "16 16 4" "14 16 2 bn128")
alone=("20 32 1")
if [ "${1:-}" = "--quick" ]; then
  compared=("12 16 2" "12 16 4" "10 16 2 bn128"); alone=("16 32 1")
fi

measure() {  # measure OUT CMD...: runs CMD, writes "seconds max_rss_kb" to OUT
  local out=$1; shift
  /usr/bin/time -f "%e %M" -o "$out" "$@" >"$out.log" 2>&1 || { cat "$out.log"; exit 1; }
}

echo "| shape (rows x cols, blowup) | pil-stark s | pil-stark RSS MiB | provd s | provd RSS MiB | ratio | roots |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for shape in "${compared[@]}"; do
  read -r n c b hash <<<"$shape"
  trace="$work/t_${n}_${c}.cm"
  [ -f "$trace" ] || node bench/stark/make_trace.js "$n" "$c" 1 "$trace"
  tree_job="" provd_hash=(); label=""
  if [ "${hash:-}" = bn128 ]; then
    tree_job=',"hash":"bn128","arity":16'; provd_hash=(--hash poseidon_bn128); label=" BN128"
  fi
  echo "[{\"columns\":\"$trace\",\"n_bits\":$n,\"n_cols\":$c,\"blowup_bits\":$b$tree_job,\"root_out\":\"$work/pil.json\"}]" \
    | node -e 'const m=JSON.parse(require("fs").readFileSync(0));console.log(JSON.stringify({commits:m}))' \
    >"$work/manifest.json"
  measure "$work/pil.time" node tests/stark/oracle.js "$work/manifest.json"
  measure "$work/provd.time" "$provd" stark-commit --columns "$trace" --n-cols "$c" \
    --blowup-bits "$b" "${provd_hash[@]}" --root-out "$work/provd.json"
  read -r pil_s pil_kb <"$work/pil.time"
  read -r our_s our_kb <"$work/provd.time"
  same=$(cmp -s "$work/pil.json" "$work/provd.json" && echo identical || echo DIFFER)
  awk -v n="$n" -v c="$c" -v b="$b" -v ps="$pil_s" -v pk="$pil_kb" -v os="$our_s" -v ok="$our_kb" \
    -v same="$same" -v label="$label" 'BEGIN { printf "| 2^%d x %d, 2^%d%s | %.2f | %.0f | %.3f | %.0f | %.0fx | %s |\n",
      n, c, b, label, ps, pk / 1024, os, ok / 1024, ps / os, same }'
done

echo
echo "| shape (rows x cols, blowup) | provd s | provd RSS MiB | extended + tree MiB | RSS / (extended + tree) |"
echo "| --- | --- | --- | --- | --- |"
for shape in "${alone[@]}"; do
  read -r n c b <<<"$shape"
  trace="$work/t_${n}_${c}.cm"
  [ -f "$trace" ] || node bench/stark/make_trace.js "$n" "$c" 2 "$trace"
  measure "$work/provd.time" "$provd" stark-commit --columns "$trace" --n-cols "$c" \
    --blowup-bits "$b" --root-out "$work/provd.json"
  read -r our_s our_kb <"$work/provd.time"
  awk -v n="$n" -v c="$c" -v b="$b" -v os="$our_s" -v ok="$our_kb" 'BEGIN {
    rows = 2 ^ (n + b); ext = rows * c * 8; tree = 2 * rows * 4 * 8;
    printf "| 2^%d x %d, 2^%d | %.2f | %.0f | %.0f | %.2f |\n", n, c, b, os, ok / 1024,
      (ext + tree) / 2 ^ 20, ok * 1024 / (ext + tree) }'
done

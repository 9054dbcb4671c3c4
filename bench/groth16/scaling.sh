#!/usr/bin/env bash
# The scaling curve: Groth16 proving time and peak RSS of provd and of snarkjs (`groth16
# prove`) on the same key and witness, from 2^12 constraints up, drawn as docs/scaling/*.svg
# with the table beside it (docs/scaling/table.md, data.tsv).
#
# The circuit is bench/groth16/chain.circom.in written directly (make_chain.js: circom2 needs
# minutes past 2^18) and checked with `snarkjs wtns check`; the key comes from `provd devsetup`
# (a ptau ceremony at 2^20 takes hours here). Both proofs of every size are verified with
# `snarkjs groth16 verify` against the verification key snarkjs exports from that key.
#
# Usage: bench/groth16/scaling.sh [--snarkjs-max K] [--check-max K] [--curve bn128|bls12381] [k ...]
#        (default: 12 14 16 18 20, snarkjs and `wtns check` up to 2^20, bn128). Inputs are cached
#        in build/bench-scaling/; the rows of the sizes measured replace those in data-*.tsv, the
#        others stay. Past --check-max the witness is checked only through the proof: snarkjs
#        accepts provd's proof, which a witness that breaks a constraint cannot give.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
snarkjs_max=20
check_max=20
curve=bn128
while [ $# -gt 0 ]; do
  case $1 in
    --snarkjs-max) snarkjs_max=$2; shift 2 ;;
    --check-max) check_max=$2; shift 2 ;;
    --curve) curve=$2; shift 2 ;;
    *) break ;;
  esac
done
powers=("$@")
[ ${#powers[@]} -gt 0 ] || powers=(12 14 16 18 20)

"$root/scripts/build.sh" release >/dev/null
for tool in /usr/bin/time gnuplot; do
  command -v "$tool" >/dev/null || { echo "scaling.sh: needs $tool (apt-get install time gnuplot-nox)" >&2; exit 1; }
done
(cd "$root/tests/circuits" && { [ -f node_modules/snarkjs/package.json ] || npm ci --silent --no-audit --no-fund; })
. "$root/bench/common.sh"
snarkjs=(node --max-old-space-size=16384 "$root/tests/circuits/node_modules/snarkjs/build/cli.cjs")
provd="$root/build/release/daemon/provd"
work="$root/build/bench-scaling/$curve"
out="$root/docs/scaling"
mkdir -p "$work" "$out"

data="$out/data-$curve.tsv"
rows="$work/rows.tsv"
: >"$rows"
for k in "${powers[@]}"; do
  dir="$work/k$k"
  mkdir -p "$dir"
  n=$(( (1 << k) - 3 ))  # + the output row, 1 public signal, the constant: a domain of 2^k
  if [ ! -f "$dir/witness.wtns" ]; then
    quiet "$dir/make.log" node "$root/bench/groth16/make_chain.js" "$n" "$dir/chain.r1cs" "$dir/witness.wtns" "$curve"
    if [ "$k" -le "$check_max" ]; then
      quiet "$dir/check.log" "${snarkjs[@]}" wtns check "$dir/chain.r1cs" "$dir/witness.wtns"
    fi
  fi
  read -r setup_s _ < <(measure "$dir/devsetup" "$provd" devsetup --r1cs "$dir/chain.r1cs" \
    --zkey-out "$dir/circuit.zkey" --insecure --seed scaling --force)
  quiet "$dir/vkey.log" "${snarkjs[@]}" zkey export verificationkey "$dir/circuit.zkey" "$dir/vkey.json"
  js_s=- js_mib=-
  if [ "$k" -le "$snarkjs_max" ]; then
    read -r js_s js_mib < <(measure "$dir/snarkjs" "${snarkjs[@]}" groth16 prove "$dir/circuit.zkey" \
      "$dir/witness.wtns" "$dir/snarkjs_proof.json" "$dir/snarkjs_public.json")
    quiet "$dir/verify.log" "${snarkjs[@]}" groth16 verify "$dir/vkey.json" \
      "$dir/snarkjs_public.json" "$dir/snarkjs_proof.json"
  fi
  read -r pd_s pd_mib < <(measure "$dir/provd" "$provd" prove --zkey "$dir/circuit.zkey" \
    --witness "$dir/witness.wtns" --proof-out "$dir/provd_proof.json" \
    --public-out "$dir/provd_public.json")
  quiet "$dir/verify.log" "${snarkjs[@]}" groth16 verify "$dir/vkey.json" \
    "$dir/provd_public.json" "$dir/provd_proof.json"
  zkey_mib=$(( $(stat -c %s "$dir/circuit.zkey") / 1048576 ))
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$k" $((n + 1)) "$setup_s" "$js_s" "$js_mib" "$pd_s" \
    "$pd_mib" "$zkey_mib" >>"$rows"
  echo "2^$k: devsetup ${setup_s}s, snarkjs ${js_s}s ${js_mib}MiB, provd ${pd_s}s ${pd_mib}MiB" >&2
done

# The rows just measured replace those of the same sizes; the others are kept.
{
  printf 'k\tconstraints\tdevsetup_s\tsnarkjs_s\tsnarkjs_mib\tprovd_s\tprovd_mib\tzkey_mib\n'
  { [ -f "$data" ] && awk -F'\t' 'NR == FNR { fresh[$1] = 1; next } FNR > 1 && !($1 in fresh)' \
      "$rows" "$data"; cat "$rows"; } | sort -n
} >"$work/data.tsv"
mv "$work/data.tsv" "$data"

{
  echo "| constraints | zkey MiB | devsetup s | snarkjs s | snarkjs MiB | provd s | provd MiB | speed-up |"
  echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  awk -F'\t' 'NR > 1 { up = ($4 == "-") ? "-" : sprintf("%.1fx", $4 / $6);
    printf "| 2^%d | %s | %s | %s | %s | %s | %s | %s |\n", $1, $8, $3, $4, $5, $6, $7, up }' "$data"
} >"$out/table-$curve.md"
cat "$out/table-$curve.md"

for what in time rss; do
  col_js=4 col_pd=6 label="proving time (s)"
  [ $what = rss ] && col_js=5 col_pd=7 label="peak RSS (MiB)"
  gnuplot <<GNUPLOT
set terminal svg size 720,440 font "sans,12"
set output "$out/$what-$curve.svg"
set title "Groth16 $curve, $label against constraints (chain circuit, $(nproc) cores)"
set logscale xy 2
set xlabel "constraints"
set ylabel "$label"
set key top left
set grid
set datafile missing "-"
set datafile separator "\t"
plot "$data" using 2:$col_js every ::1 with linespoints title "snarkjs groth16 prove", \
     "$data" using 2:$col_pd every ::1 with linespoints title "provd prove"
GNUPLOT
done
echo "wrote $out/{time,rss}-$curve.svg, $out/table-$curve.md, $data" >&2

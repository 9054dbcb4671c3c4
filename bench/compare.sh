#!/usr/bin/env bash
# Measures provd's CPU kernels and ffjavascript (snarkjs's arithmetic) on the same sizes in the
# same run, and prints the table with ratios that docs/performance.md records.
# Usage: bench/compare.sh [--quick]   (--quick: smaller sizes, for a smoke run)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

msm_sizes="12,16,18,20"; fft_sizes="16,18,20,22"; msm_filter='BM_Msm<curve::(Bn254|Bls12381)G1>/(12|16|18|20)/0/'
if [ "${1:-}" = "--quick" ]; then
  msm_sizes="12,16"; fft_sizes="16,18"; msm_filter='BM_Msm<curve::(Bn254|Bls12381)G1>/(12|16)/0/'
fi

"$root/scripts/install-deps.sh"
(cd tests/vectors && npm ci --silent --no-audit --no-fund)
cmake --preset bench >/dev/null
cmake --build --preset bench --parallel "$(nproc)" >/dev/null

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Three repetitions each, the median reported: the 2-core VMs this runs on are noisy.
reps=(--benchmark_repetitions=3 --benchmark_report_aggregates_only=true)
build/bench/bench/msm_bench --benchmark_filter="$msm_filter" --benchmark_format=json "${reps[@]}" \
  >"$out/msm.json"
build/bench/bench/ntt_bench --benchmark_filter="BM_NttForward<field::(Bn254Fr|Bls12381Fr|Goldilocks)>/($(echo $fft_sizes | tr , '|'))/" \
  --benchmark_format=json "${reps[@]}" >"$out/ntt.json"
node bench/ffjavascript_bench.js --msm "$msm_sizes" --fft "$fft_sizes" >"$out/ffjs.jsonl"

node - "$out" <<'JS'
const fs = require("fs");
const dir = process.argv[2];
const ours = {};
for (const file of ["msm.json", "ntt.json"]) {
  for (const b of JSON.parse(fs.readFileSync(`${dir}/${file}`)).benchmarks) {
    if (b.aggregate_name !== "median") continue;
    const m = b.name.match(/BM_(Msm|NttForward)<(?:curve|field)::(\w+)>\/(\d+)/);
    if (!m) continue;
    const curve = { Bn254G1: "bn254", Bls12381G1: "bls12_381", Bn254Fr: "bn254", Bls12381Fr: "bls12_381", Goldilocks: "goldilocks" }[m[2]];
    const op = m[1] === "Msm" ? "msm_g1" : "fft";
    ours[`${op}/${curve}/${m[3]}`] = b.real_time;  // ms (benchmarks use kMillisecond)
  }
}
console.log("| op | curve/field | size | provd ms | ffjavascript ms | speed-up |");
console.log("| --- | --- | --- | ---: | ---: | ---: |");
const seen = new Set();
for (const line of fs.readFileSync(`${dir}/ffjs.jsonl`, "utf8").split("\n").filter(Boolean)) {
  const r = JSON.parse(line);
  const key = `${r.op}/${r.curve}/${r.log_n}`;
  seen.add(key);
  const mine = ours[key];
  console.log(`| ${r.op} | ${r.curve} | 2^${r.log_n} | ${mine?.toFixed(1) ?? "-"} | ${r.ms.toFixed(1)} | ${mine ? (r.ms / mine).toFixed(1) + "x" : "-"} |`);
}
for (const [key, ms] of Object.entries(ours)) {
  if (seen.has(key)) continue;
  const [op, curve, logN] = key.split("/");
  console.log(`| ${op} | ${curve} | 2^${logN} | ${ms.toFixed(1)} | - | - |`);
}
JS

#!/usr/bin/env bash
# Preemption between real `provd prove` processes on a simulated GPU (no GPU needed): a
# low-priority proof holds device 0; a high-priority proof arrives at a random moment. Reports
# the median and p99 over the trials of
#   grant:  the high prover's Acquire, from raising its flag to owning the device
#   return: from the high prover releasing the device to the low one running on it again
#   low:    the low proof's wall time, disturbed / undisturbed
#   high:   the high proof's wall time beside the low one / alone
# Usage: bench/preempt/run.sh ZKEY WITNESS [TRIALS=30]   (e.g. the keys bench/groth16/run.sh makes)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
zkey=${1:?usage: run.sh ZKEY WITNESS [TRIALS]}
witness=${2:?usage: run.sh ZKEY WITNESS [TRIALS]}
trials=${3:-30}
provd="$root/build/release/daemon/provd"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# 512-point MSM chunks and one NTT stage per chunk: the yield points. 2 ms per simulated call
# stands for transfers and launches.
common=(--zkey "$zkey" --witness "$witness" --simulated-gpus 1 --simulated-gpu-latency-ms 2
        --msm-chunk-points 512 --ntt-chunk-stages 1 --lock-dir "$work/locks")

now_ms() { date +%s%3N; }
prove() {  # prove NAME PRIORITY SEED: runs one proof, stderr to $work/NAME.err, prints wall ms
  local start end
  start=$(now_ms)
  "$provd" prove "${common[@]}" --priority "$2" --seed "$3" --proof-out "$work/$1.json" \
    --public-out "$work/$1.public.json" 2>"$work/$1.err"
  end=$(now_ms)
  echo $((end - start))
}

low_alone=$(prove low-alone low 01)
high_alone=$(prove high-alone high 02)
: >"$work/rows"
for trial in $(seq "$trials"); do
  prove low low 01 >"$work/low.ms" &
  low_pid=$!
  # The high proof arrives somewhere in the first 80 % of the undisturbed low proof.
  sleep "$(awk -v max="$low_alone" -v seed="$trial" 'BEGIN { srand(seed); printf "%.3f", rand() * max * 0.8 / 1000 }')"
  high_ms=$(prove high high 02)
  wait "$low_pid"
  grant=$(sed -n 's/.*high priority: granted device 0 (\([0-9.]*\) ms).*/\1/p' "$work/high.err")
  released=$(sed -n 's/.*released device 0 at \([0-9]*\).*/\1/p' "$work/high.err")
  returned=$(sed -n 's/.*returned device 0 ([0-9.]* ms) at \([0-9]*\).*/\1/p' "$work/low.err" | head -1)
  back=-
  if [ -n "$returned" ] && [ -n "$released" ]; then back=$((returned - released)); fi
  echo "${grant:--} $back $(cat "$work/low.ms") $high_ms" >>"$work/rows"
done

awk -v low_alone="$low_alone" -v high_alone="$high_alone" -v trials="$trials" '
  function stat(name, values, n,    i, j, t, med, p99) {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (values[j] < values[i]) { t = values[i]; values[i] = values[j]; values[j] = t }
    med = values[int((n + 1) / 2)]; p99 = values[n - int(n / 100)]
    printf "| %s | %d | %.1f | %.1f |\n", name, n, med, p99
  }
  { if ($1 != "-") g[++ng] = $1; if ($2 != "-") r[++nr] = $2; l[++nl] = $3 / low_alone; h[++nh] = $4 / high_alone }
  END {
    printf "%d trials; undisturbed low %d ms, standalone high %d ms\n\n", trials, low_alone, high_alone
    print "| measure | samples | median | p99 |"
    print "| --- | ---: | ---: | ---: |"
    stat("grant latency (ms)", g, ng); stat("return latency (ms)", r, nr)
    stat("low proof / undisturbed", l, nl); stat("high proof / standalone", h, nh)
  }' "$work/rows"

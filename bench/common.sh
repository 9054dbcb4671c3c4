# Helpers shared by the benchmark drivers (source it).

quiet() {  # quiet LOG CMD...: run CMD, show its output only on failure
  local log=$1
  shift
  "$@" >"$log" 2>&1 || { cat "$log" >&2; echo "failed: $*" >&2; exit 1; }
}

# "wall_seconds peak_rss_MiB" of a command, from GNU time; its output goes to OUT.log.
measure() {  # measure OUT CMD...
  local out=$1
  shift
  /usr/bin/time -f '%e %M' -o "$out.time" "$@" >"$out.log" 2>&1 ||
    { cat "$out.log" >&2; echo "failed: $*" >&2; exit 1; }
  awk '{ printf "%s %.0f\n", $1, $2 / 1024 }' "$out.time"
}

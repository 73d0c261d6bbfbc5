#!/usr/bin/env bash
# Runs every libFuzzer target of a BRAID_FUZZ build for SECONDS each, starting from its seed corpus
# in fuzz/corpus/<name>/ (copied: what the fuzzer finds stays in the build folder), and prints
# how many inputs each ran. A crash, leak or sanitizer report fails; its input is left in
# BUILD/fuzz-findings/<name>/ and `BUILD/bin/braid_fuzz_<name> FILE` replays it.
#   scripts/fuzz.sh BUILD [SECONDS]
set -euo pipefail
build=${1:?usage: scripts/fuzz.sh BUILD [SECONDS]}
seconds=${2:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
status=0
shopt -s nullglob
targets=("$build"/bin/braid_fuzz_*)
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz: no fuzz targets in $build/bin (configure with -DBRAID_FUZZ=ON and clang)" >&2
  exit 1
fi
# One target; returns 1 on a finding.
fuzz_one() {
  local target=$1 name work findings log runs
  name=${target##*/braid_fuzz_}
  work="$build/fuzz-work/$name" findings="$build/fuzz-findings/$name"
  rm -rf "$work" && mkdir -p "$work" "$findings"
  cp "$root/fuzz/corpus/$name"/* "$work"/
  log="$build/fuzz-work/$name.log"
  if ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$findings/" "$work" >"$log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    echo "fuzz: $name: $runs inputs in ${seconds} s, no finding"
  else
    echo "fuzz: $name: FINDING (input in $findings/); the end of its log:" >&2
    tail -n 40 "$log" >&2
    return 1
  fi
}
# One target per core at a time (each fuzzer is a single thread): FUZZ_JOBS to choose.
parallel=${FUZZ_JOBS:-$(nproc)}
for ((first = 0; first < ${#targets[@]}; first += parallel)); do
  pids=()
  for target in "${targets[@]:first:parallel}"; do
    fuzz_one "$target" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
done
exit $status

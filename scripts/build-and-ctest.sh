#!/usr/bin/env bash
# The first part of `make test`: builds the main tree and runs its whole CTest suite while the
# sanitizer tree builds beside them at the lowest priority (nice 19), on the core time they leave
# idle (link steps, the end of a build, tests waiting on sockets); then waits for that build.
# Usage: scripts/build-and-ctest.sh BUILD_DIR SANITIZER_DIR JOBS
set -euo pipefail
build=$1 sanitizer=$2 jobs=$3
log=$sanitizer/background-build.log

nice -n 19 cmake --build "$sanitizer" -j "$jobs" > "$log" 2>&1 &
background=$!
# On a failure or Ctrl-C, stop the build started here (cmake, and the ninja under it, which stops
# its compilers).
trap 'pkill -TERM -P "$background" 2>/dev/null; kill "$background" 2>/dev/null; true' EXIT

cmake --build "$build" -j "$jobs"
(cd "$build" && ctest --output-on-failure -j "$jobs" --timeout 900)

echo "waiting for the sanitizer build in $sanitizer (log: $log)"
if ! wait "$background"; then
  tail -n 60 "$log" >&2
  echo "the sanitizer build in $sanitizer failed; its whole log is $log" >&2
  exit 1
fi
trap - EXIT

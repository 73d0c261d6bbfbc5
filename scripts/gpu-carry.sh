#!/usr/bin/env bash
# Packs programs built here for a run on a GPU machine that has the NVIDIA driver but none of
# Braid's Debian libraries and no network (the `device` tool's machines): copies the programs
# given and every shared library they load that is not part of the base system (glibc, libstdc++)
# into .gpu-carry/ (bin/ and lib/), a folder git ignores, small enough to travel (the CUDA runtime
# is linked in statically). On the GPU machine: LD_LIBRARY_PATH=.gpu-carry/lib .gpu-carry/bin/X.
#
#   scripts/gpu-carry.sh build/tests/braid_gpu_tests build/bin/braid        (see docs/gpu.md)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: scripts/gpu-carry.sh PROGRAM..." >&2; exit 2; }
grep -qx '/.gpu-carry/' .git/info/exclude 2>/dev/null || echo '/.gpu-carry/' >> .git/info/exclude
rm -rf .gpu-carry && mkdir -p .gpu-carry/bin .gpu-carry/lib
base_system='/(libc|libm|libdl|librt|libpthread|ld-linux-x86-64|libstdc\+\+|libgcc_s)\.so'
for program in "$@"; do
  cp "$program" .gpu-carry/bin/
  ldd "$program" | awk '/=> \// {print $3}' | grep -Ev "$base_system" | while read -r lib; do
    cp -n "$(readlink -f "$lib")" ".gpu-carry/lib/$(basename "$lib")"
  done
done
du -sh .gpu-carry

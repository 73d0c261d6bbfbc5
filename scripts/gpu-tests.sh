#!/usr/bin/env bash
# Builds, packs and runs Braid's GPU tests (docs/gpu.md). Ends with "N passed, M failed".
#
#   scripts/gpu-tests.sh            on a GPU machine with Braid's build dependencies: build, run
#   scripts/gpu-tests.sh pack       here (CUDA toolkit, no GPU needed): build the GPU test programs
#                                   and the GPU bench, and pack them with every shared library they
#                                   load (except the base system's) and Fashion-MNIST into
#                                   .gpu-carry/ (git-ignored), compressed
#   scripts/gpu-tests.sh run        on a bare GPU machine (NVIDIA driver; cuBLAS and cuDNN from the
#                                   CUDA toolkit or PyTorch's wheels), in a copy of the tree holding
#                                   .gpu-carry/: unpack, run the tests, print the summary
#   scripts/gpu-tests.sh bench [ARGS]   there too: Braid against PyTorch on GPU 0
#                                   (bench/train_vs_torch.py --device gpu ARGS)
#
# BUILD_DIR (default build) is the CMake build folder; GPU_TEST_FILTER is passed to gtest.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
programs=(tests/braid_gpu_tests bin/train_bench)
base_system='/(libc|libm|libdl|librt|libpthread|ld-linux-x86-64|libstdc\+\+|libgcc_s)\.so'

build_programs() {
  [ -f "$build/build.ninja" ] || cmake -S . -B "$build" -G Ninja
  ninja -C "$build" braid_gpu_tests train_bench
}

pack() {
  build_programs
  grep -qx '/.gpu-carry/' .git/info/exclude 2>/dev/null || echo '/.gpu-carry/' >>.git/info/exclude
  local stage
  stage=$(mktemp -d)
  mkdir -p "$stage/bin" "$stage/lib" "$stage/fashion-mnist"
  for program in "${programs[@]}"; do
    cp "$build/$program" "$stage/bin/" && strip --strip-unneeded "$stage/bin/$(basename "$program")"
    ldd "$build/$program" | awk '/=> \// {print $3}' | grep -Ev "$base_system" | while read -r lib; do
      cp -n "$(readlink -f "$lib")" "$stage/lib/$(basename "$lib")"
    done
  done
  cp "${BRAID_FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}"/*.gz "$stage/fashion-mnist/"
  rm -rf .gpu-carry && mkdir .gpu-carry
  XZ_OPT=-T0 tar -C "$stage" -cJf .gpu-carry/carry.tar.xz .
  rm -rf "$stage"
  du -sh .gpu-carry
}

# cuBLAS and cuDNN are loaded on first use: from the toolkit, or the wheels PyTorch brings.
library_path() {
  local dirs=("$1" /usr/local/cuda/lib64 /usr/local/cuda/lib)
  local site
  if site=$(python3 -c 'import nvidia, os; print(os.path.dirname(list(nvidia.__path__)[0]))' 2>/dev/null); then
    dirs+=("$site"/nvidia/*/lib)
  fi
  local IFS=:
  echo "${dirs[*]}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}

# Runs the test program $1 with its results in $2 (gtest XML); prints its output.
run_tests() {
  "$1" --gtest_output="xml:$2" ${GPU_TEST_FILTER:+--gtest_filter="$GPU_TEST_FILTER"} || true
}

summarize() {
  python3 - "$@" <<'PY'
import sys, xml.etree.ElementTree as ET
passed = failed = skipped = 0
for path in sys.argv[1:]:
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        print(f"no results from {path}: the program crashed"); failed += 1; continue
    for case in root.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        elif case.find("skipped") is not None or case.get("result") == "skipped":
            skipped += 1
        else:
            passed += 1
print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
sys.exit(1 if failed else 0)
PY
}

# Unpacks .gpu-carry into $dir (once) and points the loader and the tests at it.
unpack() {
  dir=.gpu-carry/unpacked
  [ -d "$dir" ] || python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
    .gpu-carry/carry.tar.xz "$dir"  # Python: the machine may lack xz
  export LD_LIBRARY_PATH BRAID_FASHION_MNIST_DIR="$PWD/$dir/fashion-mnist"
  LD_LIBRARY_PATH=$(library_path "$PWD/$dir/lib")
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
}

case "${1:-local}" in
  pack) pack ;;
  run)
    unpack
    run_tests "$dir/bin/braid_gpu_tests" "$dir/gpu.xml"
    summarize "$dir/gpu.xml"
    ;;
  bench)
    unpack
    shift
    python3 bench/train_vs_torch.py --braid "$dir/bin/train_bench" --device gpu "$@"
    ;;
  local)
    build_programs
    LD_LIBRARY_PATH=$(library_path "$build/lib") run_tests "$build/tests/braid_gpu_tests" "$build/gpu.xml"
    summarize "$build/gpu.xml"
    ;;
  *)
    echo "usage: scripts/gpu-tests.sh [pack|run|bench ARGS]" >&2
    exit 2
    ;;
esac

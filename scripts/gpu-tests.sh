#!/usr/bin/env bash
# Builds, packs and runs Braid's GPU tests (docs/gpu.md). Ends with "N passed, M failed".
#
#   scripts/gpu-tests.sh            on a GPU machine with Braid's build dependencies: build, run
#   scripts/gpu-tests.sh pack [PARTS]   here (CUDA toolkit, no GPU needed): build and pack into
#                                   .gpu-carry/ (git-ignored) the parts named (comma-separated,
#                                   default all), each a file of its own:
#                                     programs  the GPU test program and the GPU bench
#                                     python    Debian's Python 3.11 with NumPy, SciPy, pytest and
#                                               nose, Braid's Python package, MXNet's GPU tests
#                                     data      Fashion-MNIST (PACK_TRAIN_IMAGES=N: the training
#                                               set's first N images only)
#                                   and libs.tar.xz: every shared library the packed parts load
#                                   (except the base system's)
#   scripts/gpu-tests.sh run [cpp|mxnet]   on a bare GPU machine (NVIDIA driver; cuBLAS and cuDNN
#                                   from the CUDA toolkit or PyTorch's wheels), in a copy of the tree
#                                   holding .gpu-carry/: unpack, run the C++ tests (with programs)
#                                   and MXNet's GPU tests (with python), or only the one named, print
#                                   the summaries
#   scripts/gpu-tests.sh bench [ARGS]   there too: Braid against PyTorch on GPU 0
#                                   (bench/train_vs_torch.py --device gpu ARGS)
#   scripts/gpu-tests.sh resnet-bench [ARGS]   there too, with python packed: ResNet-18 on CIFAR
#                                   shapes, Braid against PyTorch (bench/resnet_vs_torch.py ARGS)
#
# BUILD_DIR (default build) is the CMake build folder; GPU_TEST_FILTER is passed to gtest and
# GPU_TEST_TIMEOUT (seconds, default 1800) bounds the C++ tests; MXNET_GPU_BUDGET (seconds,
# default 300) bounds the MXNet test run, MXNET_GPU_JOBS (default 8) files or parts of files at once, each file
# dealt into MXNET_GPU_SHARDS (default 4) parts.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
carry=.gpu-carry
programs=(tests/braid_gpu_tests bin/train_bench)
base_system='/(libc|libm|libdl|librt|libpthread|ld-linux-x86-64|libstdc\+\+|libgcc_s)\.so'
mxnet_tests=${MXNET_TESTS_DIR:-../shared/mxnet-1.9.1-tests}

# Debian's Python with what MXNet's tests import, Braid's package, and the tests, under $1.
stage_python() {
  local stage=$1 packages=/usr/lib/python3/dist-packages
  mkdir -p "$stage/python/bin" "$stage/python/lib/python3/dist-packages" "$stage/braid-build" "$stage/mxnet-tests"
  cp /usr/bin/python3.11 "$stage/python/bin/python3"
  tar -C /usr/lib -cf - --exclude=__pycache__ --exclude=test --exclude=tests --exclude=idlelib \
    --exclude=tkinter --exclude=turtledemo --exclude=ensurepip --exclude=lib2to3 --exclude='config-3.11*' \
    --exclude=pydoc_data python3.11 | tar -C "$stage/python/lib" -xf -
  tar -C "$packages" -cf - --exclude=__pycache__ --exclude=tests --exclude=test numpy scipy _pytest pytest \
    pluggy iniconfig packaging attr py py.py nose | tar -C "$stage/python/lib/python3/dist-packages" -xf -
  tar -C "$build" -cf - --exclude=CMakeFiles --exclude=__pycache__ --exclude='*.cmake' python |
    tar -C "$stage/braid-build" -xf -
  strip --strip-unneeded "$stage"/braid-build/python/braid/_core*.so
  cp -r "$mxnet_tests"/{gpu,unittest,LICENSE} "$stage/mxnet-tests/"
}

# Cuts the Fashion-MNIST training files in $1 to their first $2 images (a smaller carry).
keep_first_training_images() {
  python3 - "$1" "$2" <<'PY'
import gzip, os, struct, sys
folder, keep = sys.argv[1], int(sys.argv[2])
for name, header in (("train-images-idx3-ubyte.gz", 16), ("train-labels-idx1-ubyte.gz", 8)):
    path = os.path.join(folder, name)
    with gzip.open(path) as f:
        data = f.read()
    count = min(keep, struct.unpack(">I", data[4:8])[0])
    item = (len(data) - header) // struct.unpack(">I", data[4:8])[0]
    with gzip.open(path, "wb") as f:
        f.write(data[:4] + struct.pack(">I", count) + data[8:header] + data[header:header + count * item])
PY
}

pack() {
  local parts=${1:-programs,python,data}
  [[ ,$parts, == *,python,* ]] && [ ! -d "$mxnet_tests/gpu" ] &&
    { echo "pack: no MXNet tests at $mxnet_tests (set MXNET_TESTS_DIR)" >&2; exit 2; }
  build_programs
  grep -qx '/.gpu-carry/' .git/info/exclude 2>/dev/null || echo '/.gpu-carry/' >>.git/info/exclude
  rm -rf "$carry" && mkdir "$carry"
  local stage elves=()
  stage=$(mktemp -d)
  if [[ ,$parts, == *,programs,* ]]; then
    mkdir -p "$stage/programs/bin"
    for program in "${programs[@]}"; do
      cp "$build/$program" "$stage/programs/bin/" && strip --strip-unneeded "$stage/programs/bin/${program##*/}"
      elves+=("$build/$program")
    done
    XZ_OPT="-T0 -9" tar -C "$stage/programs" -cJf "$carry/programs.tar.xz" .
  fi
  if [[ ,$parts, == *,python,* ]]; then
    stage_python "$stage/py"
    mapfile -t -O "${#elves[@]}" elves < <(find "$stage/py" -name '*.so' -o -path '*/bin/python3')
    XZ_OPT="-T0 -9" tar -C "$stage/py" -cJf "$carry/python.tar.xz" .
  fi
  if [[ ,$parts, == *,data,* ]]; then
    mkdir -p "$stage/data"
    cp "${BRAID_FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}"/*.gz "$stage/data/"
    [ -z "${PACK_TRAIN_IMAGES:-}" ] || keep_first_training_images "$stage/data" "$PACK_TRAIN_IMAGES"
    tar -C "$stage/data" -cf "$carry/fashion-mnist.tar" .
  fi
  # Every shared library the packed ELF files load, under the name they ask for (libblas.so.3)
  mkdir -p "$stage/libs/lib"
  for file in "${elves[@]}"; do ldd "$file"; done | awk '/=> \// {print $1, $3}' | sort -u |
    while read -r name path; do
      [[ $path =~ $base_system ]] || cp -n "$(readlink -f "$path")" "$stage/libs/lib/$name"
    done
  XZ_OPT="-T0 -9" tar -C "$stage/libs" -cJf "$carry/libs.tar.xz" .
  rm -rf "$stage"
  ls -l "$carry"
  du -ch "$carry"/* | tail -1
}

build_programs() {
  [ -f "$build/build.ninja" ] || cmake -S . -B "$build" -G Ninja
  ninja -C "$build" braid_gpu_tests train_bench braid_python
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
  timeout "${GPU_TEST_TIMEOUT:-1800}" "$1" --gtest_output="xml:$2" ${GPU_TEST_FILTER:+--gtest_filter="$GPU_TEST_FILTER"} || true
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

# Unpacks the parts of .gpu-carry present into $dir (once each) and points the loader at them.
unpack() {
  dir=$carry/unpacked
  mkdir -p "$dir"
  local part
  for part in "$carry"/*.tar*; do
    [ -e "$dir/.${part##*/}" ] && continue
    # Python's tarfile: the machine may lack xz
    python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$part" "$dir"
    touch "$dir/.${part##*/}"
  done
  export LD_LIBRARY_PATH BRAID_FASHION_MNIST_DIR="$PWD/$dir"
  LD_LIBRARY_PATH=$(library_path "$PWD/$dir/lib")
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
}

# MXNet's GPU tests (tests/conformance/gpu_in_scope.txt): Python $1, Braid's build $2, tests $3.
run_mxnet_tests() {
  local files
  mapfile -t files < <(grep -v '^#' tests/conformance/gpu_in_scope.txt)
  "$1" tests/conformance/run.py -v --build "$2" --tests "$3" --jobs "${MXNET_GPU_JOBS:-8}" --shards "${MXNET_GPU_SHARDS:-4}" \
    --test-timeout 120 --budget "${MXNET_GPU_BUDGET:-300}" "${files[@]}"
}

case "${1:-local}" in
  pack) pack "${2:-}" ;;
  run)
    unpack
    status=0
    only=${2:-}
    if [ "$only" != mxnet ] && [ -x "$dir/bin/braid_gpu_tests" ]; then
      run_tests "$dir/bin/braid_gpu_tests" "$dir/gpu.xml"
      summary=$(summarize "$dir/gpu.xml") || status=1
      echo "C++ GPU tests: $summary"
    fi
    if [ "$only" != cpp ] && [ -x "$dir/python/bin/python3" ]; then
      export PYTHONHOME="$PWD/$dir/python"
      run_mxnet_tests "$dir/python/bin/python3" "$dir/braid-build" "$dir/mxnet-tests/gpu" || status=1
    fi
    exit $status
    ;;
  bench)
    unpack
    shift
    python3 bench/train_vs_torch.py --braid "$dir/bin/train_bench" --device gpu "$@"
    ;;
  resnet-bench)
    unpack
    shift
    # Braid's side runs on the packed Python, PyTorch's on the machine's
    braid_python=$PWD/$dir/braid-python
    printf '#!/bin/sh\nPYTHONHOME=%s PYTHONPATH=%s exec %s "$@"\n' "$PWD/$dir/python" "$PWD/$dir/braid-build/python" \
      "$PWD/$dir/python/bin/python3" >"$braid_python"
    chmod +x "$braid_python"
    python3 bench/resnet_vs_torch.py --braid-python "$braid_python" "$@"
    ;;
  local)
    build_programs
    export LD_LIBRARY_PATH
    LD_LIBRARY_PATH=$(library_path "$build/lib")
    run_tests "$build/tests/braid_gpu_tests" "$build/gpu.xml"
    status=0
    summary=$(summarize "$build/gpu.xml") || status=1
    echo "C++ GPU tests: $summary"
    run_mxnet_tests /usr/bin/python3 "$build" "$mxnet_tests/gpu" || status=1
    exit $status
    ;;
  *)
    echo "usage: scripts/gpu-tests.sh [pack [programs,python,data]|run|bench ARGS|resnet-bench ARGS]" >&2
    exit 2
    ;;
esac

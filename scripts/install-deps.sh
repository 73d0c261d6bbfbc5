#!/usr/bin/env bash
# Installs every build, test and benchmark dependency of Braid from Debian's packages (DESIGN §4).
# Idempotent: packages already present are not touched, so running it again costs a dpkg query.
set -euo pipefail

packages=(
  g++ cmake ninja-build make pkg-config
  clang libclang-rt-14-dev libomp-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libopenblas-dev libdnnl-dev
  libzmq3-dev cppzmq-dev libssl-dev
  libopenmpi-dev openmpi-bin
  slurmd slurmctld slurm-client  # braid launch --launcher slurm (its test starts a one-node Slurm)
  nlohmann-json3-dev libcpp-httplib-dev libcli11-dev zlib1g-dev
  libjpeg-dev libpng-dev  # mx.image: JPEG (libjpeg-turbo) and PNG
  dataset-fashion-mnist
  python3 python3-dev python3-numpy python3-torch python3-pytest pybind11-dev
  python3-scipy python3-nose  # MXNet's own unit tests (make conformance) import them
  python3-onnx  # mx.onnx
  python3-graphviz  # mx.viz.plot_network
  python3-pil python3-torchvision  # the image tests' reference decoder; model-zoo architectures
  python3-venv python3-pip  # pip install . into a virtual environment (its test)
  gnuplot-nox
  nginx
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"

#!/usr/bin/env bash
# Shared by the scripts: install what is missing, configure and build.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LLVM_DIR=/usr/lib/llvm-22

PACKAGES=(
  cmake ninja-build ccache git
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools clang-22 lld-22
  libomp-22-dev zlib1g-dev libzstd-dev libedit-dev libxml2-dev
  libgtest-dev libbenchmark-dev clang-format-22
  python3-numpy python3-pytest python3-pytest-xdist python3-venv python3-pip
  python3-torch
)

# Installs the Debian packages that are not installed yet (apt-get update
# runs once, and only when something is missing).
install_deps() {
  local missing=()
  for pkg in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
      || missing+=("$pkg")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    echo "== dependencies: all installed"
    return
  fi
  echo "== installing: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}

# configure_and_build BUILD_DIR [extra cmake args...]
configure_and_build() {
  local build="$1"
  shift
  if [ ! -f "$build/build.ninja" ]; then
    cmake -S "$ROOT" -B "$build" -G Ninja \
      -DCMAKE_BUILD_TYPE=Release \
      -DMLIR_DIR="$LLVM_DIR/lib/cmake/mlir" \
      -DLLVM_EXTERNAL_LIT="$LLVM_DIR/bin/lit" \
      -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
      -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
      "-DCMAKE_EXE_LINKER_FLAGS=-B$LLVM_DIR/bin -fuse-ld=lld" \
      "-DCMAKE_SHARED_LINKER_FLAGS=-B$LLVM_DIR/bin -fuse-ld=lld" \
      -DPython3_EXECUTABLE=/usr/bin/python3 \
      "$@"
  fi
  echo "== building in $build"
  ninja -C "$build" -j2
}

# On a machine without LLVM (the GPU machine): installs wheel $1 into folder
# $2 with Python $3, leaving that Python's own packages as they are, and
# makes it what `import recurrence` finds.
use_wheel() {
  "$3" -m pip install -q --no-index --no-deps --target "$2" "$1"
  export PYTHONPATH="$2"
  unset RECURRENCE_PYTHON_DIR RECURRENCE_LIBRARY
}

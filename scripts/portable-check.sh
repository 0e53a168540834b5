#!/usr/bin/env bash
# Builds the wheel, installs it into a fresh virtual environment and runs
# the Python tests there against the installed package (not the build
# tree), from a directory outside the repository.
#
#   scripts/portable-check.sh [BUILD_DIR]      (default: build/, built first)
#
# The venv sees the system's site-packages for numpy, pytest and torch (no
# package index is needed); the wheel itself installs with --no-index.
# scripts/gpu-machine-check.sh runs the same tests from a sent wheel on a
# machine without LLVM.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

build="${1:-$ROOT/build}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "== wheel"
RECURRENCE_BUILD_DIR="$build" /usr/bin/python3 -m pip wheel --no-deps \
  --no-index -q "$ROOT/python-bindings" -w "$work/dist"
wheel="$(ls "$work"/dist/recurrence-*.whl)"
ls -l "$wheel" | awk '{ printf "%s  %.1f MiB\n", $NF, $5 / 1048576 }'

echo "== venv: install with --no-index, run the tests"
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
"$work/venv/bin/python" -m pip install -q --no-index --no-deps "$wheel"
cp -r "$ROOT/python-bindings/tests" "$work/tests"
cd "$work"
# The tests spend their time compiling, each compile on one core: a pytest
# worker per core (pytest-xdist, where installed).
workers=()
if "$work/venv/bin/python" -c "import xdist" 2>/dev/null; then
  workers=(-n "$(nproc)")
fi
# A compile cache of its own, which the workers share (entries are written
# to a temporary file, then renamed): the run compiles every kernel, and
# writes and loads the cache along the way. The ten slowest tests are
# named at the end, to keep an eye on the suite's time.
RECURRENCE_CACHE_DIR="$work/cache" env -u RECURRENCE_PYTHON_DIR -u RECURRENCE_LIBRARY \
  "$work/venv/bin/python" -m pytest -q -rsx -p no:cacheprovider "${workers[@]}" \
  --durations=10 tests "$@"

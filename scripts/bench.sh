#!/usr/bin/env bash
# Installs what is missing, builds, and runs the CPU throughput benchmark:
# one BENCH line per structure x schedule with its bandwidth and its ratios
# to memcpy and to a hand-written -O3 OpenMP loop, both measured in the same
# run; then the same shapes through Python (BENCH-PY lines, with out=); then
# every model op through recurrence.torch, forward and forward + backward,
# against a plain torch loop over time (BENCH-MODEL lines); then the scan's
# gradient recomputing its states and reading them from the forward's
# output (BENCH-BACKWARD lines); then a scan over packed sequences through
# torch against the same steps as one sequence (BENCH-PACKED lines).
#
#   scripts/bench.sh            the shapes of the README table
#   scripts/bench.sh --quick    8x shorter sequences, one repetition
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

install_deps
configure_and_build "$ROOT/build"
echo
echo "== $(lscpu | sed -n 's/^Model name: *//p') ($(nproc) cores)"

"$ROOT/build/bin/recurrence-bench" "$@"
echo
echo "== through Python: recurrence.scan(..., out=) on /usr/bin/python3"
quick=()
for arg in "$@"; do [ "$arg" = "--quick" ] && quick=(--quick); done
/usr/bin/python3 "$ROOT/bench/python_bench.py" "${quick[@]}" \
  --python-dir "$ROOT/build/python" --lib-dir "$ROOT/build/lib"

echo
echo "== model ops through recurrence.torch against a torch loop over time"
/usr/bin/python3 "$ROOT/bench/models_bench.py" "${quick[@]}" \
  --python-dir "$ROOT/build/python"

echo
echo "== the scan's gradient: recomputing the states, or reading the output's"
/usr/bin/python3 "$ROOT/bench/cpu_backward.py" "${quick[@]}" \
  --python-dir "$ROOT/build/python"

echo
echo "== packed sequences through recurrence.torch, against one sequence"
/usr/bin/python3 "$ROOT/bench/packed_backward.py" "${quick[@]}" \
  --python-dir "$ROOT/build/python"

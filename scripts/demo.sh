#!/usr/bin/env bash
# Installs what is missing, builds, then compiles and runs the example
# recurrences on the CPU and prints their error against a float64 reference,
# and checks one derived gradient against finite differences.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

install_deps
configure_and_build "$ROOT/build"

echo
echo "== the example, scheduled and lowered to loops by recurrence-opt (first lines)"
"$ROOT/build/bin/recurrence-opt" "$ROOT/examples/bdlru.mlir" \
  -recurrence-select-schedule -recurrence-lower-sequential | head -n 12
echo "   ..."
echo
status=0
for example in bdlru diagonal selective_ssm; do
  "$ROOT/build/bin/recurrence-run" "$ROOT/examples/$example.mlir" || status=1
  echo
done
echo "== its gradient, derived by recurrence-opt -recurrence-differentiate and"
echo "   checked against central differences of the float64 reference"
"$ROOT/build/bin/recurrence-opt" "$ROOT/examples/bdlru.mlir" \
  -recurrence-differentiate |
  "$ROOT/build/bin/recurrence-run" - --entry bdlru_layer_grad || status=1
exit $status

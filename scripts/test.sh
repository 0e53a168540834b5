#!/usr/bin/env bash
# Installs what is missing, builds and runs every test suite: lit (IR tests
# and JIT execution tests) and the GoogleTest suites.
#
#   scripts/test.sh             plain release build in build/
#   scripts/test.sh --sanitize  AddressSanitizer + UBSan build in build-sanitize/
#                               (C++ suites only: a sanitized Python extension
#                               would need the ASan runtime preloaded)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

build="$ROOT/build"
cmake_args=()
sanitize=0
if [ "${1:-}" = "--sanitize" ]; then
  sanitize=1
  build="$ROOT/build-sanitize"
  cmake_args+=(-DRECURRENCE_SANITIZE=ON)
  # allow_user_poisoning=0: libMLIR.so is not instrumented, and allocator
  # poisoning inlined into our code would flag its writes falsely.
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:allow_user_poisoning=0"
  export LSAN_OPTIONS="suppressions=$ROOT/scripts/lsan.supp:print_suppressions=0"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
fi

install_deps
configure_and_build "$build" "${cmake_args[@]}"

passed=0
failed=0
skipped=0
status=0

echo
echo "== lit"
lit_log="$(mktemp)"
if "$LLVM_DIR/bin/lit" -sv "$build/test" | tee "$lit_log"; then :; else status=1; fi
p=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$lit_log" | tail -n1 || true)
f=$( (grep -E '^ *(Failed|Unresolved|Timed Out) *:' "$lit_log" || true) |
  awk -F: '{ split($2, n, " "); s += n[1] } END { print s + 0 }')
# Tests that did not run are failures in the plain build: a missing tool or
# feature must not pass silently. The sanitizer build has no shared-library
# front doors, so their lit tests are expected to be unsupported there.
u=$( (grep -E '^ *(Unsupported|Skipped|Excluded) *:' "$lit_log" || true) |
  awk -F: '{ split($2, n, " "); s += n[1] } END { print s + 0 }')
[ "$sanitize" -eq 1 ] || skipped=$((skipped + ${u:-0}))
passed=$((passed + ${p:-0}))
failed=$((failed + ${f:-0}))
rm -f "$lit_log"

# What follows compiles with LLVM's backend at -O0 (its IR optimizer stays
# at -O3; lit above ran at the users' levels): about half the time.
# docs/Rationale.md, "Testing philosophy", says why.
export RECURRENCE_CODEGEN_OPT_LEVEL="${RECURRENCE_CODEGEN_OPT_LEVEL:-0}"

# Each suite runs in one shard per core; the counts add up over shards.
shards=$(nproc)
for suite in ReferenceTests JitModuleTests LoweringTests ScanExecutionTests \
  AdjointTests; do
  echo
  echo "== $suite ($shards shards)"
  pids=()
  logs=()
  for ((i = 0; i < shards; i++)); do
    log="$(mktemp)"
    logs+=("$log")
    GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i \
      "$build/unittests/$suite" --gtest_brief=1 >"$log" 2>&1 &
    pids+=($!)
  done
  for ((i = 0; i < shards; i++)); do
    wait "${pids[$i]}" || status=1
    grep -v '^Running main()' "${logs[$i]}" || true
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "${logs[$i]}" || true)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "${logs[$i]}" || true)
    k=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "${logs[$i]}" || true)
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0}))
    skipped=$((skipped + ${k:-0}))
    rm -f "${logs[$i]}"
  done
done

if [ "$sanitize" -eq 0 ]; then
echo
# The Python tests run against the wheel, installed into a fresh venv: what
# a user gets, with no build tree on the path.
echo "== pytest (python-bindings/tests, the wheel in a venv of /usr/bin/python3)"
py_log="$(mktemp)"
if "$ROOT/scripts/portable-check.sh" "$build" | tee "$py_log"; then :; else
  status=1
fi
summary=$(grep -E '^=*[ ]*[0-9]+ (passed|failed|skipped|error)' "$py_log" | tail -n1 || true)
count() { echo "$summary" | grep -oE "[0-9]+ $1" | grep -oE '[0-9]+' || echo 0; }
passed=$((passed + $(count passed)))
failed=$((failed + $(count failed) + $(count "errors?")))
skipped=$((skipped + $(count skipped) + $(count xfailed) + $(count deselected)))
rm -f "$py_log"

echo
echo "== install: cmake --install, then find_package(Recurrence) from outside"
prefix="$build/install-test/prefix"
consumer="$build/install-test/consumer"
rm -rf "$build/install-test"
install_checks=(
  "cmake --install '$build' --prefix '$prefix' >/dev/null"
  "cmake -S '$ROOT/test/install' -B '$consumer' -G Ninja -DCMAKE_BUILD_TYPE=Release \
     -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
     -DRecurrence_DIR='$prefix/lib/cmake/Recurrence' \
     '-DCMAKE_EXE_LINKER_FLAGS=-B$LLVM_DIR/bin -fuse-ld=lld' >/dev/null && ninja -C '$consumer' >/dev/null"
  "'$consumer/consumer-c'"
  "'$consumer/consumer-cxx'"
  "PYTHONPATH='$prefix/python' /usr/bin/python3 -c 'import numpy, recurrence; print(\"python: ok\", recurrence.scan(numpy.full((1, 2, 1), 0.5), numpy.ones((1, 2, 1)))[0, :, 0])'"
)
for check in "${install_checks[@]}"; do
  if bash -c "$check"; then
    passed=$((passed + 1))
  else
    echo "FAILED: $check"
    failed=$((failed + 1))
    status=1
  fi
done
fi

echo
[ "$passed" -gt 0 ] || status=1
[ "$failed" -eq 0 ] || status=1
[ "$skipped" -eq 0 ] || status=1
echo "$passed passed, $failed failed, $skipped skipped or unsupported"
[ "$skipped" -eq 0 ] || echo "error: every test must run; a skip counts as a failure"
exit $status

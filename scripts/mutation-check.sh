#!/usr/bin/env bash
# Checks that the test suite catches real bugs: applies each deliberate bug
# of scripts/mutation/mutants.txt to the lowering sources, one at a time,
# rebuilds only what changed and runs the execution tests (the long-memory
# suite first, then the rest, stopping at the first failure), or for a
# mutant of the GPU lowering, which cannot run here, the lit tests that
# check its IR. Prints one line
# per mutant, killed or survived; exits non-zero unless every mutant is
# killed. The sources and the build are restored afterwards.
#
#   scripts/mutation-check.sh [BUILD_DIR]     (default: build/, built first)
#
# MUTANTS=FILE takes the mutants from another list (e.g. a few new ones).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

build="${1:-$ROOT/build}"
list="${MUTANTS:-$ROOT/scripts/mutation/mutants.txt}"
tool="$ROOT/scripts/mutation/mutate.py"

install_deps >/dev/null
configure_and_build "$build" >/dev/null

backup="$(mktemp -d)"
current=""
restore() {
  if [ -n "$current" ]; then
    cp "$backup/source" "$ROOT/$current"
    current=""
  fi
}
trap 'restore; rm -rf "$backup"' EXIT

# Runs the execution tests on both cores; fails at the first failing test.
run_tests() {
  local filter="$1" status=0 pids=() i
  for ((i = 0; i < 2; i++)); do
    GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=$i "$tests" --gtest_brief=1 \
      --gtest_fail_fast "--gtest_filter=$filter" >"$backup/log$i" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  return $status
}

count=$(/usr/bin/python3 "$tool" count "$list")
killed=0
survived=0
invalid=0
for ((m = 0; m < count; m++)); do
  name=$(/usr/bin/python3 "$tool" name "$list" "$m")
  file=$(/usr/bin/python3 "$tool" file "$list" "$m")
  suite=$(/usr/bin/python3 "$tool" tests "$list" "$m")
  tests="$build/unittests/$suite"
  target="$suite"
  # "lit:FILTER": the lit tests whose names match FILTER kill it (the GPU
  # lowering's are checked here by their IR, not run).
  [[ "$suite" == lit:* ]] && target=recurrence-lit-depends
  cp "$ROOT/$file" "$backup/source"
  current="$file" # only now may the trap restore it
  if ! /usr/bin/python3 "$tool" apply "$list" "$m" "$ROOT"; then
    echo "INVALID   $name (its text is not found exactly once)"
    invalid=$((invalid + 1))
    restore
    continue
  fi
  start=$SECONDS
  if ! ninja -C "$build" -j2 "$target" >"$backup/build.log" 2>&1; then
    echo "INVALID   $name (does not build)"
    grep -m3 "error:" "$backup/build.log" || true
    invalid=$((invalid + 1))
    restore
    continue
  fi
  rm -f "$backup/log0" "$backup/log1"
  if [[ "$suite" == lit:* ]]; then
    "$LLVM_DIR/bin/lit" -q "$build/test" --filter "${suite#lit:}" \
      >"$backup/log0" 2>&1 && passed=1 || passed=0
  else
    run_tests '*LongMemory*:*MillionSteps*' &&
      run_tests '-*LongMemory*:*MillionSteps*' && passed=1 || passed=0
  fi
  if [ "$passed" = 1 ]; then
    echo "SURVIVED  $name ($((SECONDS - start)) s)"
    survived=$((survived + 1))
  else
    first=$( (grep -h -m1 -e '^\[  FAILED  \]' -e '^  Recurrence :: ' \
      "$backup/log0" "$backup/log1" 2>/dev/null || true) | head -n1 |
      sed 's/^\[  FAILED  \] //; s/^  //; s/, where.*//')
    [ -n "$first" ] || first="the test binary crashed"
    echo "KILLED    $name ($((SECONDS - start)) s; $first)"
    killed=$((killed + 1))
  fi
  restore
done

echo "== restoring the build"
ninja -C "$build" -j2 >/dev/null
echo "$killed killed, $survived survived, $invalid invalid of $count mutants"
[ "$survived" -eq 0 ] && [ "$invalid" -eq 0 ]

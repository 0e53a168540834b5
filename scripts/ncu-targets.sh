#!/usr/bin/env bash
# On the GPU machine: installs a wheel built here, as gpu-check.sh does, and
# runs Nsight Compute on one call of each benchmark whose target is unmet
# (bench/ncu_targets.py), ours and then accelerated_scan's on the same
# values where it has one: duration, memory throughput, occupancy,
# registers and warp stalls per kernel. The whole report goes to
# $NCU_LOG (default: ncu-targets.log under $OUT where that is set, else
# here; each run starts it anew); a line per kernel with its chief figures
# is printed. A case whose run profiled no kernel fails, and if the first
# does, nothing more runs (ncu may lack the permission to read counters).
# accelerated_scan runs once per shape (its layout is its own), so not for
# the [B, N, T] cases, nor where its source is not found.
#
#   scripts/ncu-targets.sh dist/recurrence-*.whl [CASE ...]
#
# Cases (default: all): python3 bench/ncu_targets.py --list.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
wheel="$(realpath "${1:?usage: $0 WHEEL [CASE ...]}")"
shift
python="${PYTHON:-python3}"
command -v ncu >/dev/null || { echo "ncu: not found" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
source "$root/scripts/common.sh"
use_wheel "$wheel" "$work/site" "$python"
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  mapfile -t cases < <("$python" "$root/bench/ncu_targets.py" --list | cut -d: -f1)
fi
[ ${#cases[@]} -gt 0 ] || { echo "no cases to run" >&2; exit 1; }
export RECURRENCE_CACHE_DIR="${RECURRENCE_CACHE_DIR:-$work/cache}"
baselines="${BASELINES:-$root/../shared/baselines}"
[ -d "$baselines" ] || baselines="$root/.baselines"
theirs=1
if [ ! -d "$baselines/accelerated_scan" ]; then
  echo "accelerated_scan's source is not in $baselines: ours only"
  theirs=0
fi
log="${NCU_LOG:-${OUT:-$PWD}/ncu-targets.log}"
: > "$log"
status=0
runs=0
for case in "${cases[@]}"; do
  for side in ours theirs; do
    flag=()
    if [ "$side" = theirs ]; then
      # No block_diagonal scan of its own; one layout of its own.
      case "$case" in block* | *_bnt) continue ;; esac
      [ "$theirs" = 1 ] || continue
      flag=(--theirs --baselines "$baselines")
    fi
    echo "== $case $side" | tee -a "$log"
    ncu --profile-from-start off --section SpeedOfLight \
      --section Occupancy --section LaunchStats --section WarpStateStats \
      --section MemoryWorkloadAnalysis \
      "$python" "$root/bench/ncu_targets.py" "$case" "${flag[@]}" \
      > "$work/one.log" 2>&1 && ran=0 || ran=$?
    cat "$work/one.log" >> "$log"
    runs=$((runs + 1))
    if [ "$ran" != 0 ] || grep -q '^==ERROR==' "$work/one.log" ||
        ! grep -qE '^  [^ ].*\)x\(.*, Context' "$work/one.log"; then
      echo "FAIL ncu on $case $side: exit $ran, or no kernel profiled (see $log)"
      status=1
      if [ "$runs" = 1 ]; then
        tail -n 20 "$work/one.log"
        exit 1
      fi
    fi
  done
done
# A line per kernel: its name and launch, then the figures that say what
# limits it.
awk '
  /^== / { if (line) print line; line = ""; print; next }
  /^  [^ ].*\(.*\)x\(.*\), Context/ {
    if (line) print line
    line = $0; sub(/, Context.*/, "", line)
  }
  /^    Duration / { line = line " duration=" $NF " " $(NF - 1) }
  /^    DRAM Throughput / { line = line " dram%=" $NF }
  /^    Compute \(SM\) Throughput / { line = line " sm%=" $NF }
  /^    Registers Per Thread / { line = line " registers=" $NF }
  /^    Achieved Occupancy / { line = line " occupancy%=" $NF }
  /^    Warp Cycles Per Issued Instruction / { line = line " cycles/issue=" $NF }
  END { if (line) print line }
' "$log"
exit $status

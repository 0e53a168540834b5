#!/usr/bin/env bash
# On the GPU machine: installs a wheel built here, as gpu-check.sh does, and
# runs Nsight Compute on one call of each benchmark whose target is unmet
# (bench/ncu_targets.py), ours and then accelerated_scan's on the same
# values where it has one: duration, memory throughput, occupancy,
# registers and warp stalls per kernel. The whole report goes to
# $NCU_LOG (default: ncu-targets.log here); a line per kernel with its
# chief figures is printed.
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
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  mapfile -t cases < <("$python" "$root/bench/ncu_targets.py" --list | cut -d: -f1)
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
source "$root/scripts/common.sh"
use_wheel "$wheel" "$work/site" "$python"
export RECURRENCE_CACHE_DIR="${RECURRENCE_CACHE_DIR:-$work/cache}"
baselines="${BASELINES:-$root/../shared/baselines}"
[ -d "$baselines" ] || baselines="$root/.baselines"
log="${NCU_LOG:-$PWD/ncu-targets.log}"
: > "$log"
status=0
for case in "${cases[@]}"; do
  for side in ours theirs; do
    flag=()
    if [ "$side" = theirs ]; then
      # accelerated_scan has no block_diagonal scan.
      case "$case" in block*) continue ;; esac
      flag=(--theirs --baselines "$baselines")
    fi
    echo "== $case $side" | tee -a "$log"
    if ! ncu --profile-from-start off --section SpeedOfLight \
        --section Occupancy --section LaunchStats --section WarpStateStats \
        --section MemoryWorkloadAnalysis \
        "$python" "$root/bench/ncu_targets.py" "$case" "${flag[@]}" \
        >> "$log" 2>&1; then
      echo "FAIL ncu on $case $side (see $log)"
      status=1
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
  /^    Registers Per Thread / { line = line " registers=" $NF }
  /^    Achieved Occupancy / { line = line " occupancy%=" $NF }
  /^    Warp Cycles Per Issued Instruction / { line = line " cycles/issue=" $NF }
  END { if (line) print line }
' "$log"
exit $status

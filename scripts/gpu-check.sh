#!/usr/bin/env bash
# On the GPU machine: installs a wheel built here (no LLVM or compiler
# needed there) and runs bench/gpu_check.py: correctness of the GPU
# lowering against the CPU and float64, compute-sanitizer memcheck on a
# reduced run, then the benchmarks. One line per check.
#
#   scripts/gpu-check.sh dist/recurrence-*.whl [gpu_check.py options]
#
# Options after the wheel go to gpu_check.py (e.g. --only backward,bench;
# the whole run takes over 10 minutes on the H200, so split it in calls:
# --only forward, --only blelloch (the scan schedule, forward and
# backward), --only backward (--only double_backward alone),
# --only long,layouts,user_ir,
# --only models,bench_models (torch's model functions on CUDA tensors) and
# --only overhead,bench,bench_backward;
# --only frameworks runs torch's and JAX's associative scans on the bench
# shapes, slow to compile);
# --structures dplr,dense limits the correctness checks to some structures;
# MEMCHECK=0 skips the sanitizer runs (memcheck, then racecheck).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
wheel="$(realpath "${1:?usage: $0 WHEEL [gpu_check.py options]}")"
shift
python="${PYTHON:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "== $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -n): $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
source "$root/scripts/common.sh"
use_wheel "$wheel" "$work/site" "$python"
export RECURRENCE_CACHE_DIR="$work/cache"
status=0
# accelerated_scan's source, beside the checkout or sent along in
# .baselines/ (not part of the project).
baselines="${BASELINES:-$root/../shared/baselines}"
[ -d "$baselines" ] || baselines="$root/.baselines"
"$python" "$root/bench/gpu_check.py" --baselines "$baselines" "$@" || status=$?
if [ "${MEMCHECK:-1}" != 0 ] && command -v compute-sanitizer >/dev/null; then
  echo "== compute-sanitizer --tool memcheck (reduced run)"
  compute-sanitizer --tool memcheck --print-limit 20 \
    "$python" "$root/bench/gpu_check.py" --quick "$@" 2>&1 | grep -v "^PASS" |
    tail -n 40 || status=$?
  echo "== compute-sanitizer --tool racecheck (reduced forward run: chunked and sequential kernels)"
  compute-sanitizer --tool racecheck --print-limit 20 \
    "$python" "$root/bench/gpu_check.py" --quick --only forward 2>&1 |
    grep -v "^PASS" | tail -n 20 || status=$?
fi
exit $status

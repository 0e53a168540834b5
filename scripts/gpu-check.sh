#!/usr/bin/env bash
# On the GPU machine: installs a wheel built here (no LLVM or compiler
# needed there) and runs bench/gpu_check.py: correctness of the GPU
# lowering against the CPU and float64, compute-sanitizer memcheck on a
# reduced run, then the benchmarks. One line per check.
#
#   scripts/gpu-check.sh dist/recurrence-*.whl [gpu_check.py options]
#
# Options after the wheel go to gpu_check.py (e.g. --only backward,bench;
# sections: forward, blelloch (the scan schedule, forward and backward),
# backward (--only double_backward alone), long, layouts, user_ir,
# models and bench_models (torch's model functions on CUDA tensors),
# overhead, bench, bench_backward, and frameworks, which runs torch's and
# JAX's associative scans on the bench shapes, slow to compile).
# Compiling, not the GPU, takes the correctness checks' time, so they run
# in $JOBS worker processes (default: a process per two CPUs, at most 12),
# the sanitizers' runs too; the benchmarks run alone after them.
# --structures dplr,dense limits the correctness checks to some structures;
# MEMCHECK=0 skips the sanitizer runs (memcheck, then racecheck);
# SANITIZERS_ONLY=1 runs only them; SANITIZERS=racecheck (or memcheck)
# runs one of the two (unset or empty: both); racecheck runs the forward
# section whatever --only says, over --structures if given. Kernels
# compile into a fresh cache unless $RECURRENCE_CACHE_DIR names one (runs
# split over several calls on one machine then compile each kernel once).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
wheel="$(realpath "${1:?usage: $0 WHEEL [gpu_check.py options]}")"
shift
python="${PYTHON:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

sanitizers="${SANITIZERS:-memcheck racecheck}"
if [ -z "${sanitizers//[[:space:]]/}" ]; then
  echo "SANITIZERS names no sanitizer (MEMCHECK=0 skips them)" >&2
  exit 1
fi
for tool in $sanitizers; do
  case "$tool" in
  memcheck | racecheck) ;;
  *) echo "SANITIZERS takes memcheck and racecheck, not '$tool'" >&2; exit 1 ;;
  esac
done
echo "== $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -n): $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
source "$root/scripts/common.sh"
use_wheel "$wheel" "$work/site" "$python"
export RECURRENCE_CACHE_DIR="${RECURRENCE_CACHE_DIR:-$work/cache}"
status=0
cpus="$(nproc)"
jobs="${JOBS:-$(( (cpus + 1) / 2 > 12 ? 12 : (cpus + 1) / 2 ))}"
# accelerated_scan's source, beside the checkout or sent along in
# .baselines/ (not part of the project).
baselines="${BASELINES:-$root/../shared/baselines}"
[ -d "$baselines" ] || baselines="$root/.baselines"
# Keeps the last $1 lines of a sanitizer run but its PASS lines, which it
# counts instead.
failures_and_count() {
  awk '/^PASS/ { n++; next } { print } END { print n + 0 " checks passed" }' |
    tail -n "$1"
}
sanitize=0
if [ "${MEMCHECK:-1}" != 0 ] && command -v compute-sanitizer >/dev/null; then
  sanitize=1
fi
if [ "${SANITIZERS_ONLY:-0}" = 0 ]; then
  "$python" "$root/bench/gpu_check.py" --baselines "$baselines" \
    --jobs "$jobs" "$@" || status=$?
elif [ "$sanitize" = 0 ]; then
  echo "SANITIZERS_ONLY=1, but no sanitizer run: MEMCHECK=0 or no compute-sanitizer" >&2
  exit 1
fi
if [ "$sanitize" = 1 ] && [[ " $sanitizers " == *" memcheck "* ]]; then
  echo "== compute-sanitizer --tool memcheck (reduced run)"
  compute-sanitizer --tool memcheck --target-processes all --print-limit 20 \
    --error-exitcode 1 \
    "$python" "$root/bench/gpu_check.py" --quick --jobs "$jobs" "$@" 2>&1 |
    failures_and_count 40 || status=$?
fi
if [ "$sanitize" = 1 ] && [[ " $sanitizers " == *" racecheck "* ]]; then
  echo "== compute-sanitizer --tool racecheck (reduced forward run: chunked and sequential kernels)"
  compute-sanitizer --tool racecheck --target-processes all --print-limit 20 \
    --error-exitcode 1 \
    "$python" "$root/bench/gpu_check.py" --quick --jobs "$jobs" "$@" \
    --only forward 2>&1 |
    failures_and_count 20 || status=$?
fi
exit $status

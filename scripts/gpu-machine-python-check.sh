#!/usr/bin/env bash
# On a machine without LLVM or a compiler (the GPU machine: Python 3.12,
# torch 2.11): installs a wheel built elsewhere (scripts/portable-check.sh
# or `pip wheel python-bindings`) and runs the Python tests against it.
#
#   scripts/gpu-machine-python-check.sh dist/recurrence-*.whl [pytest args]
#
# The wheel goes into a target folder on PYTHONPATH rather than into the
# machine's venv, which holds torch and stays as it is.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
wheel="$(realpath "${1:?usage: $0 WHEEL}")"
python="${PYTHON:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "== $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -n): $("$python" -c 'import platform; print("Python", platform.python_version())'), glibc $(ldd --version | head -n1 | awk '{ print $NF }')"
source "$root/scripts/common.sh"
use_wheel "$wheel" "$work/site" "$python"
"$python" - <<'PY'
import numpy, recurrence
from recurrence import _recurrence
try:
    import torch
    versions = f"torch {torch.__version__}"
except ImportError:
    versions = "no torch"
bf16 = ("ml_dtypes " + _recurrence.ml_dtypes.__version__
        if _recurrence.ml_dtypes else "no ml_dtypes")
print(f"recurrence {_recurrence.version} from {recurrence.__file__}; "
      f"numpy {numpy.__version__}; {versions}; {bf16}")
print("smoke:", recurrence.scan(numpy.full((1, 3, 1), 0.5),
                                numpy.ones((1, 3, 1)))[0, :, 0])
PY
cp -r "$root/python-bindings/tests" "$work/tests"
cd "$work"
# Further arguments pick tests (e.g. tests/test_torch_compile.py -x); the
# default is all of them.
shift
[ $# -gt 0 ] || set -- tests
"$python" -m pytest -q -rsx -p no:cacheprovider "$@"

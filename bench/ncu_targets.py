"""One call of each GPU benchmark whose target is unmet, for Nsight
Compute: what limits its kernels (memory throughput, occupancy, registers,
stalls). Each case compiles and warms up first; only its timed call runs
between torch.cuda.profiler.start() and stop(), so that under
`ncu --profile-from-start off` only that call's kernels are profiled.
`--theirs` profiles accelerated_scan's call on the same values instead
(its source in --baselines), for the same figures of the kernel to beat.
ncu prints its reports when the process ends, so a process runs one
case; scripts/ncu-targets.sh runs them one after another:

    scripts/ncu-targets.sh WHEEL [CASE ...]        # on the GPU machine
    python3 bench/ncu_targets.py --list

Cases, the inputs of gpu_check.py's benchmarks:
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_check import (BENCH_CASES, accelerated_backward,  # noqa: E402
                       backward_problem, baseline_scan, bench_inputs, rt)

# Each case: the gpu_check.BENCH_CASES entry whose inputs it takes (None:
# backward_problem's), and the layout its operands are read in.
_CASES = {"many_btn": (0, "[B, T, N]"), "many_bnt": (0, "[B, N, T]"),
          "long_btn": (1, "[B, T, N]"), "long_bnt": (1, "[B, N, T]"),
          "block2": (2, "[B, T, N]"), "block4": (3, "[B, T, N]"),
          "backward": (None, "[B, T, N]")}


def describe(case):
    """What `case` runs, in words."""
    index, layout = _CASES[case]
    if index is None:
        B, T, N = backward_problem.__defaults__
        return f"diagonal forward + backward ({B}, {T}, {N}) {layout}"
    structure, shape, m = BENCH_CASES[index]
    label = structure + (f"<{m}>" if m else "")
    return f"{label} {shape} {layout}"


CASES = {case: describe(case) for case in _CASES}
__doc__ += "".join(f"    {name}: {what}\n" for name, what in CASES.items())


def problem(case, accelerated):
    """The case's call, and accelerated_scan's (`accelerated`, or None) on
    the same values in its layout (time-contiguous (B, N, T)), or None
    where it has none."""
    index, layout = _CASES[case]
    if index is None:
        a, b, g, ours = backward_problem()
        theirs = accelerated and accelerated_backward(a, b, g,
                                                      accelerated)[2]
        return ours, theirs
    structure, shape, m = BENCH_CASES[index]
    a, b = bench_inputs(*shape, m)
    if m:
        return (lambda: rt.scan(a, b, structure=structure)), None
    gates = a.transpose(1, 2).contiguous()
    tokens = b.transpose(1, 2).contiguous()
    if layout == "[B, N, T]":
        a, b = gates.transpose(1, 2), tokens.transpose(1, 2)
    theirs = accelerated and (lambda: accelerated(gates, tokens))
    return (lambda: rt.scan(a, b)), theirs


def profiled(label, call):
    """`call` warmed up, then once between the profiler's start and stop."""
    import torch
    for _ in range(2):
        call()
    torch.cuda.synchronize()
    print(f"NCU-CASE {label}", flush=True)
    torch.cuda.profiler.start()
    call()
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("case", nargs="?", metavar="CASE",
                        help="the case to run")
    parser.add_argument("--theirs", action="store_true",
                        help="accelerated_scan's call instead of ours")
    parser.add_argument("--baselines", help="a folder holding "
                        "accelerated_scan's source")
    parser.add_argument("--list", action="store_true",
                        help="print the cases and exit")
    args = parser.parse_args()
    if args.list:
        for name, what in CASES.items():
            print(f"{name}: {what}")
        return
    if args.case not in CASES:
        parser.error(f"expected a case, one of {', '.join(CASES)}; got "
                     f"{args.case!r}")
    accelerated = baseline_scan(args.baselines) if args.theirs else None
    ours, theirs = problem(args.case, accelerated)
    if not args.theirs:
        profiled(f"{args.case} ours: {CASES[args.case]}", ours)
        return
    if theirs is None:
        raise SystemExit(f"{args.case}: no accelerated_scan call (it has "
                         f"none for this case, or --baselines lacks it)")
    profiled(f"{args.case} accelerated_scan: {CASES[args.case]}", theirs)


if __name__ == "__main__":
    main()

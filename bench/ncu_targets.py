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

CASES = {
    "many_btn": "diagonal (8, 16384, 1536) [B, T, N]",
    "many_bnt": "diagonal (8, 16384, 1536) [B, N, T] (time-contiguous views)",
    "long_btn": "diagonal (1, 262144, 256) [B, T, N]",
    "long_bnt": "diagonal (1, 262144, 256) [B, N, T] (time-contiguous views)",
    "block2": "block_diagonal<2> (8, 4096, 512)",
    "block4": "block_diagonal<4> (8, 4096, 512)",
    "backward": "diagonal forward + backward (8, 16384, 1536) [B, T, N]",
}
__doc__ += "".join(f"    {name}: {what}\n" for name, what in CASES.items())


def problem(case):
    """The case's call, and accelerated_scan's on the same values in its
    layout (time-contiguous (B, N, T)), or None where it has none."""
    from gpu_check import backward_problem, bench_inputs, rt
    if case == "backward":
        a, b, g, ours = backward_problem()
        gates = a.detach().transpose(1, 2).contiguous().requires_grad_()
        tokens = b.detach().transpose(1, 2).contiguous().requires_grad_()
        cotangent = g.transpose(1, 2).contiguous()

        def theirs(scan):
            gates.grad = tokens.grad = None
            scan(gates, tokens).backward(cotangent)
        return ours, theirs
    shape = (1, 262144, 256) if case.startswith("long") else (
        8, 4096, 512) if case.startswith("block") else (8, 16384, 1536)
    m = int(case[len("block"):]) if case.startswith("block") else None
    a, b = bench_inputs(*shape, m)
    structure = "block_diagonal" if m else "diagonal"
    if m:
        return (lambda: rt.scan(a, b, structure=structure)), None
    gates = a.transpose(1, 2).contiguous()
    tokens = b.transpose(1, 2).contiguous()
    if case.endswith("_bnt"):
        a, b = gates.transpose(1, 2), tokens.transpose(1, 2)
    return (lambda: rt.scan(a, b)), (lambda scan: scan(gates, tokens))


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
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    ours, theirs = problem(args.case)
    if not args.theirs:
        profiled(f"{args.case} ours: {CASES[args.case]}", ours)
        return
    from gpu_check import baseline_scan
    accelerated = baseline_scan(args.baselines)
    if theirs is None or accelerated is None:
        raise SystemExit(f"{args.case}: no accelerated_scan call (it has "
                         f"none for this case, or --baselines lacks it)")
    profiled(f"{args.case} accelerated_scan: {CASES[args.case]}",
             lambda: theirs(accelerated))


if __name__ == "__main__":
    main()

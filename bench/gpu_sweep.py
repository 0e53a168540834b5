"""Times the GPU bench shapes under several `-recurrence-to-nvvm` option
sets, each in a process of its own (`$RECURRENCE_NVVM_OPTIONS`, part of the
compile cache's key), against a device-to-device copy of the same bytes
measured in the same process. One line per option set and shape:

    python3 bench/gpu_sweep.py "pipeline=0" "pipeline=1 unroll=32" ...

The diagonal shapes are also timed time-contiguous ([B, N, T], read in
place). `--diagonal` times only the diagonal shapes.
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_check  # noqa: E402
import recurrence.torch as rt  # noqa: E402


def measure(options, diagonal_only):
    """One line per bench shape (and layout), and the diagonal forward +
    backward."""
    for structure, (B, T, N), m in gpu_check.BENCH_CASES:
        if diagonal_only and m is not None:
            continue
        a, b = gpu_check.bench_inputs(B, T, N, m)
        moved = gpu_check.scan_bytes(a, b)
        copy = gpu_check.copy_seconds(moved)
        ours = gpu_check.seconds(lambda: rt.scan(a, b, structure=structure))
        label = structure + (f"<{m}>" if m else "")
        want = rt.scan(a, b, structure=structure, schedule="sequential")
        error = gpu_check.relative_error(rt.scan(a, b, structure=structure),
                                         want)
        print(f"SWEEP [{options}] {label} (B,T,N)=({B},{T},{N}) "
              f"ms={ours * 1e3:.3f} vs_copy={copy / ours:.3f} "
              f"agree={error:.1e}", flush=True)
        if m is None:
            # The same values time contiguous, read in place.
            views = [x.transpose(1, 2).contiguous().transpose(1, 2)
                     for x in (a, b)]
            os.environ["RECURRENCE_IN_PLACE_LAYOUTS"] = "1"
            try:
                ours = gpu_check.seconds(lambda: rt.scan(*views))
                error = gpu_check.relative_error(rt.scan(*views), want)
            finally:
                os.environ.pop("RECURRENCE_IN_PLACE_LAYOUTS")
            print(f"SWEEP [{options}] {label} (B,T,N)=({B},{T},{N}) "
                  f"layout=[B,N,T] ms={ours * 1e3:.3f} "
                  f"vs_copy={copy / ours:.3f} agree={error:.1e}", flush=True)
    a, b, g, forward_backward = gpu_check.backward_problem()
    B, T, N = a.shape
    took = gpu_check.seconds(forward_backward, reps=5)
    print(f"SWEEP [{options}] diagonal forward+backward (B,T,N)=({B},{T},{N}) "
          f"ms={took * 1e3:.3f}", flush=True)


def main():
    arguments = sys.argv[1:]
    diagonal_only = "--diagonal" in arguments
    arguments = [a for a in arguments if a != "--diagonal"]
    if len(arguments) == 2 and arguments[0] == "--child":
        measure(arguments[1], diagonal_only)
        return 0
    status = 0
    for options in arguments or [""]:
        env = dict(os.environ, RECURRENCE_NVVM_OPTIONS=options)
        status |= subprocess.run(
            [sys.executable, __file__, "--child", options] +
            (["--diagonal"] if diagonal_only else []), env=env).returncode
    return status


if __name__ == "__main__":
    sys.exit(main())

"""Times the GPU bench shapes under several `-recurrence-to-nvvm` option
sets, each in a process of its own (`$RECURRENCE_NVVM_OPTIONS`, part of the
compile cache's key), against a device-to-device copy of the same bytes
measured in the same process. One line per option set and shape:

    python3 bench/gpu_sweep.py "pipeline=0" "pipeline=1 unroll=32" ...
"""

import os
import subprocess
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_check  # noqa: E402
import recurrence.torch as rt  # noqa: E402


def measure(options):
    """One line per bench shape, and the diagonal forward + backward."""
    for structure, (B, T, N), m in gpu_check.BENCH_CASES:
        a, b = gpu_check.bench_inputs(B, T, N, m)
        moved = a.numel() * 4 + 2 * b.numel() * 4
        source = torch.empty(moved // 8, device="cuda")
        target = torch.empty_like(source)
        copy = gpu_check.seconds(lambda: target.copy_(source))
        ours = gpu_check.seconds(lambda: rt.scan(a, b, structure=structure))
        label = structure + (f"<{m}>" if m else "")
        print(f"SWEEP [{options}] {label} (B,T,N)=({B},{T},{N}) "
              f"ms={ours * 1e3:.3f} vs_copy={copy / ours:.3f}", flush=True)
        del a, b, source, target
    a, b, g, forward_backward = gpu_check.backward_problem()
    B, T, N = a.shape
    took = gpu_check.seconds(forward_backward, reps=5)
    print(f"SWEEP [{options}] diagonal forward+backward (B,T,N)=({B},{T},{N}) "
          f"ms={took * 1e3:.3f}", flush=True)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        measure(sys.argv[2])
        return 0
    status = 0
    for options in sys.argv[1:] or [""]:
        env = dict(os.environ, RECURRENCE_NVVM_OPTIONS=options)
        status |= subprocess.run([sys.executable, __file__, "--child",
                                  options], env=env).returncode
    return status


if __name__ == "__main__":
    sys.exit(main())

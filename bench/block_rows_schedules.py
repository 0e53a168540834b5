"""block_diagonal<m> forward on the H200 at (B, 4096, 512) for several B:
the schedule the cost model picks (auto) against sequential (a lane per
block row) and chunked, each against a device-to-device copy of the same
bytes in the same process; to fit the cost model's lane threshold for
block rows.

    python3 bench/block_rows_schedules.py
"""

import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_check  # noqa: E402
import recurrence.torch as rt  # noqa: E402


def main():
    T, N = 4096, 512
    for m in (2, 4, 8):
        for B in (1, 2, 4, 8, 16):
            a, b = gpu_check.bench_inputs(B, T, N, m)
            moved = a.numel() * 4 + 2 * b.numel() * 4
            source = torch.empty(moved // 8, device="cuda")
            target = torch.empty_like(source)
            copy = gpu_check.seconds(lambda: target.copy_(source))
            line = f"block_diagonal<{m}> (B,T,N)=({B},{T},{N})"
            for schedule in ("auto", "sequential", "chunked"):
                took = gpu_check.seconds(lambda: rt.scan(
                    a, b, structure="block_diagonal", schedule=schedule))
                line += (f" {schedule}={took * 1e3:.3f}ms"
                         f"({copy / took:.2f}x copy)")
            print(line, flush=True)
            del a, b, source, target


if __name__ == "__main__":
    main()

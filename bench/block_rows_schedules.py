"""block_diagonal<m> forward on the H200 at (B, 4096, 512) for several B:
the schedule the cost model picks (auto) against sequential (a lane per
block row) and chunked, each against a device-to-device copy of the same
bytes in the same process; to fit the cost model's lane threshold for
block rows.

    python3 bench/block_rows_schedules.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_check  # noqa: E402
import recurrence.torch as rt  # noqa: E402


def main():
    T, N = 4096, 512
    for m in (2, 4, 8):
        for B in (1, 2, 4, 8, 16):
            a, b = gpu_check.bench_inputs(B, T, N, m)
            moved = gpu_check.scan_bytes(a, b)
            copy = gpu_check.copy_seconds(moved)
            line = f"block_diagonal<{m}> (B,T,N)=({B},{T},{N})"
            for schedule in ("auto", "sequential", "chunked"):
                took = gpu_check.seconds(lambda: rt.scan(
                    a, b, structure="block_diagonal", schedule=schedule))
                line += (f" {schedule}={took * 1e3:.3f}ms"
                         f"({copy / took:.2f}x copy)")
            print(line, flush=True)
            a = b = None  # freed before the next shape's inputs


if __name__ == "__main__":
    main()

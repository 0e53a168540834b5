"""The cuda cost model against the GPU: for shapes around its decisions
(few channels of long sequences, where the chunked and Blelloch schedules
compete, and block structures), every schedule's measured time beside the
model's estimate of it, the copy of the same bytes as the ceiling, and
whether the model's pick is the fastest schedule measured. Run on the GPU
machine from an installed wheel:

    python3 bench/cost_model_gpu.py
"""

import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recurrence  # noqa: E402
import recurrence.torch as rt  # noqa: E402
from gpu_check import bench_inputs, copy_seconds, scan_bytes, seconds  # noqa: E402

CASES = [("diagonal", (1, 1 << 20, 4), None),
         ("diagonal", (1, 1 << 18, 4), None),
         ("diagonal", (1, 1 << 16, 16), None),
         ("diagonal", (1, 1 << 18, 64), None),
         ("diagonal", (1, 262144, 256), None),
         ("diagonal", (2, 65536, 128), None),
         ("diagonal", (8, 16384, 1536), None),
         ("block_diagonal", (8, 4096, 512), 2),
         ("block_diagonal", (8, 4096, 512), 4),
         ("block_diagonal", (1, 65536, 64), 2)]
SCHEDULES = [("sequential", None), ("chunked", 64), ("chunked", 256),
             ("chunked", 1024), ("chunked", 4096), ("scan", None)]


def name(schedule, chunk):
    return f"{schedule}<{chunk}>" if chunk else schedule


def main():
    print(f"== {torch.cuda.get_device_name()}, torch {torch.__version__}",
          flush=True)
    for structure, (B, T, N), m in CASES:
        a, b = bench_inputs(B, T, N, m)
        moved = scan_bytes(a, b)
        copy = copy_seconds(moved)
        plan = recurrence.explain(np.zeros(a.shape, np.float32),
                                  np.zeros(b.shape, np.float32),
                                  structure=structure, target="cuda")
        estimates = dict(plan["candidates"])
        label = structure + (f"<{m}>" if m else "")
        measured = {}
        for schedule, chunk in SCHEDULES:
            key = name(schedule, chunk)
            try:
                measured[key] = seconds(
                    lambda: rt.scan(a, b, structure=structure,
                                    schedule=schedule, chunk_size=chunk),
                    reps=3 if schedule == "sequential" and T > 65536 else 10)
            except (ValueError, RuntimeError) as error:
                print(f"COST {label} (B,T,N)=({B},{T},{N}) {key}: "
                      f"{type(error).__name__}: {str(error).splitlines()[0]}",
                      flush=True)
                continue
            print(f"COST {label} (B,T,N)=({B},{T},{N}) {key}: measured "
                  f"{measured[key] * 1e3:.3f} ms (vs_copy "
                  f"{copy / measured[key]:.3f}), estimated "
                  + (f"{estimates[key] * 1e3:.3f} ms" if key in estimates
                     else "none (not a candidate)"), flush=True)
        best = min(measured, key=measured.get)
        pick = plan["schedule"]
        print(f"PICK {label} (B,T,N)=({B},{T},{N}): model {pick} "
              f"{measured.get(pick, float('nan')) * 1e3:.3f} ms, fastest "
              f"{best} {measured[best] * 1e3:.3f} ms", flush=True)


if __name__ == "__main__":
    main()

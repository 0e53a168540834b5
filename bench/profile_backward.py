"""Per-kernel GPU times of diagonal forward + backward through
recurrence.torch, from torch.profiler (CUPTI sees the kernels our runtime
launches through the driver API): where the backward's time goes.

    python3 bench/profile_backward.py [B T N [time]]
"""

import sys

import torch
import recurrence.torch as rt


def main():
    B, T, N = (int(v) for v in sys.argv[1:4]) if len(sys.argv) > 3 else (
        8, 16384, 1536)
    # "time": [B, N, T] arrays passed as their [B, T, N] views.
    time_major = sys.argv[4:5] == ["time"]
    shape = (B, N, T) if time_major else (B, T, N)
    torch.manual_seed(0)

    def view(x):
        return x.transpose(1, 2) if time_major else x

    a = torch.rand(shape, device="cuda").mul_(0.5).add_(0.5).requires_grad_()
    b = torch.randn(shape, device="cuda", requires_grad=True)
    g = view(torch.randn(shape, device="cuda"))

    def step():
        a.grad = b.grad = None
        rt.scan(view(a), view(b)).backward(g)

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    activities = [torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=activities) as profile:
        for _ in range(5):
            step()
        torch.cuda.synchronize()
    print(f"diagonal forward + backward (B,T,N)=({B},{T},{N})"
          f"{' time-contiguous' if time_major else ''}, 5 calls:")
    print(profile.key_averages().table(sort_by="cuda_time_total",
                                       row_limit=20, max_name_column_width=60))
    # The kernels of the last call in launch order (the modules' kernels
    # share a name), with their times and the bytes a copy of one
    # [B, T, N] float32 array moves in that time.
    kernels = [e for e in profile.events()
               if e.device_type == torch.autograd.DeviceType.CUDA]
    per_call = len(kernels) // 5
    array = B * T * N * 4
    for i, event in enumerate(kernels[-per_call:]):
        us = event.device_time if hasattr(event, "device_time") else \
            event.cuda_time
        print(f"kernel {i}: {event.name} {us:.1f} us "
              f"({array / (us * 1e-6) / 1e12:.2f} TB/s per array)")


if __name__ == "__main__":
    main()

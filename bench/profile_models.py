"""Per-kernel GPU times of a model function's forward + backward (or
forward alone) on CUDA tensors (recurrence.torch.selective_ssm or
delta_rule), compiled (RECURRENCE_CUDA_MODELS=1) or composed of torch ops
around the scan, from torch.profiler: where the time goes, beside the
wall time of a call timed without the profiler (where it far exceeds the
kernels', the host's time to issue them is what a call costs). Then, for
forward + backward, the gradients of both forms on the same inputs,
against each other (the compiled op's own reductions, e.g. the SSM's dA,
against torch's).

    python3 bench/profile_models.py [selective_ssm|delta_rule] [compiled|composed]
        [large|small] [backward|forward]

Defaults: selective_ssm compiled large backward. The shapes are
gpu_check's MODEL_SHAPES: large (4, 2048, 768, 16) and 8 heads of the
delta rule, small (1, 256, 64, 16) and one head. backward profiles forward +
backward, forward the forward alone, without autograd.
"""

import os
import sys
import time

import torch

from gpu_check import MODEL_SHAPES, model_inputs


def inputs(model, shape):
    torch.manual_seed(0)
    ssm, delta_rule = model_inputs(*MODEL_SHAPES[shape])
    return ssm if model == "selective_ssm" else delta_rule


def main():
    model = sys.argv[1] if len(sys.argv) > 1 else "selective_ssm"
    form = sys.argv[2] if len(sys.argv) > 2 else "compiled"
    shape = sys.argv[3] if len(sys.argv) > 3 else "large"
    part = sys.argv[4] if len(sys.argv) > 4 else "backward"
    if (len(sys.argv) > 5 or model not in ("selective_ssm", "delta_rule")
            or form not in ("compiled", "composed") or shape not in MODEL_SHAPES
            or part not in ("forward", "backward")):
        raise SystemExit(f"unexpected arguments {sys.argv[1:]}\n{__doc__}")
    os.environ["RECURRENCE_CUDA_MODELS"] = "1" if form == "compiled" else "0"
    import recurrence.torch as rt
    fn = getattr(rt, model)
    leaves = [t.requires_grad_() for t in inputs(model, shape)]

    def step():
        if part == "forward":
            with torch.no_grad():
                fn(*leaves)
            return
        for t in leaves:
            t.grad = None
        fn(*leaves).sum().backward()

    for _ in range(2):
        step()
    torch.cuda.synchronize()
    calls = 3
    start = time.perf_counter()
    for _ in range(calls):
        step()
    torch.cuda.synchronize()
    wall = (time.perf_counter() - start) / calls
    with torch.profiler.profile(
            activities=[torch.profiler.ProfilerActivity.CUDA]) as profile:
        for _ in range(calls):
            step()
        torch.cuda.synchronize()
    kernels = [e for e in profile.events()
               if e.device_type == torch.autograd.DeviceType.CUDA]
    per_call = len(kernels) // calls
    last = kernels[-per_call:]
    total = sum(e.device_time for e in last)
    what = "forward" if part == "forward" else "forward + backward"
    print(f"PROFILE {model} {form} {shape} {what}: {per_call} kernels, "
          f"{total / 1e3:.3f} ms of kernel time per call, {wall * 1e3:.3f} ms "
          f"of wall time (unprofiled)")
    # In launch order (the modules' kernels share a name).
    for i, event in enumerate(last):
        print(f"PROFILE kernel {i}: {event.device_time:9.1f} us "
              f"{100 * event.device_time / total:5.1f}% {event.name[:70]}")

    if part == "forward":
        return
    grads = {}
    for other in ("compiled", "composed"):
        os.environ["RECURRENCE_CUDA_MODELS"] = "1" if other == "compiled" else "0"
        step()
        grads[other] = [t.grad.clone() for t in leaves]
    worst = max((a - b).abs().max().item() /
                max(b.abs().max().item(), 1e-30)
                for a, b in zip(grads["compiled"], grads["composed"]))
    print(f"PROFILE gradients compiled against composed: largest difference "
          f"{worst:.2e} of the largest magnitude")


if __name__ == "__main__":
    main()

"""recurrence on an NVIDIA GPU: correctness of every structure and variant
that the GPU lowering covers, against the CPU result of the same op and the
float64 reference, then throughput against a device-to-device copy, compile
time and per-call overhead. One line per check; run by scripts/gpu-check.sh
on the GPU machine from an installed wheel."""

import argparse
import contextlib
import gc
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python-bindings", "tests"))
import recurrence.torch as rt  # noqa: E402
import reference  # noqa: E402
from test_scan import transition  # noqa: E402
from python_bench import best_seconds  # noqa: E402

STRUCTURES = ["identity", "scalar", "diagonal", "block_diagonal", "dplr",
              "dense", "higher_order"]
VARIANTS = ["plain", "reverse_init_final", "factored_readout"]


def report_failure(name, error):
    """Prints the FAIL line of a check that raised; returns 1 (a failure)."""
    print(f"FAIL {name}: {type(error).__name__}: "
          f"{str(error).splitlines()[0]}", flush=True)
    return 1


def report(name, ok, detail):
    """Prints a check's PASS or FAIL line; returns 1 if it failed."""
    print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}", flush=True)
    return 0 if ok else 1


def relative_error(got, want):
    """The tests' relative error (reference.py) of two tensors."""
    return reference.relative_error(got.detach().double().cpu().numpy(),
                                    want.detach().double().cpu().numpy())


def problem(structure, variant, shape, dtype, rng):
    """The operands of one check, as float64 CPU tensors and the kwargs."""
    batch, T, N, D = shape
    a = transition(structure, rng, batch, T, N, np.float64)
    to = lambda x: None if x is None else (
        tuple(torch.tensor(y) for y in x) if isinstance(x, tuple)
        else torch.tensor(x))
    kwargs = dict(structure=structure)
    if variant == "factored_readout":
        b = (torch.tensor(rng.uniform(-1, 1, batch + (T, N))),
             torch.tensor(rng.uniform(-1, 1, batch + (T, D))))
        kwargs["readout"] = torch.tensor(rng.uniform(-1, 1, batch + (T, N)))
    else:
        b = torch.tensor(rng.uniform(-1, 1, batch + (T, N)))
    if variant == "reverse_init_final":
        depth = (2,) if structure == "higher_order" else ()
        kwargs.update(reverse=True, return_final_state=True,
                      init=torch.tensor(rng.uniform(-1, 1,
                                                    batch + depth + (N,))))
    return to(a), b, kwargs


def cast(x, dtype, device, state=False):
    """x (tensor, tuple or None) in `dtype` on `device`; the state in f32
    when the operands are narrower."""
    if x is None:
        return None
    if isinstance(x, tuple):
        return tuple(cast(y, dtype, device) for y in x)
    narrow = dtype in (torch.float16, torch.bfloat16)
    return x.to(torch.float32 if state and narrow else dtype).to(device)


def rounded(x, dtype):
    """float64 operands rounded to `dtype` (the reference's inputs)."""
    if x is None or not isinstance(x, (tuple, torch.Tensor)):
        return x
    if isinstance(x, tuple):
        return tuple(rounded(y, dtype) for y in x)
    return x.to(dtype).double()


def run(a, b, kwargs, dtype, device):
    kw = dict(kwargs)
    for key in ("init", "readout"):
        if key in kw:
            kw[key] = cast(kw[key], dtype, device, state=key == "init")
    out = rt.scan(cast(a, dtype, device), cast(b, dtype, device), **kw)
    return out if isinstance(out, tuple) else (out,)


_STATIC_SHAPES = os.environ.get("RECURRENCE_STATIC_SHAPES")


# The checks this process runs, as (index, count): every count-th check of
# the run's fixed order from the index-th on (--shard, set for the worker
# processes of --jobs); the whole run by default.
_SHARD = [0, 1]
_TURN = [0]


def mine():
    """Whether the next check in the run's fixed order is this process's
    to run (see _SHARD); every call takes one turn."""
    index, count = _SHARD
    turn = _TURN[0]
    _TURN[0] += 1
    return turn % count == index


def sharded(check):
    """check() (a failure count) if it is this process's to run, else 0."""
    return check() if mine() else 0


def restore_static_shapes():
    if _STATIC_SHAPES is None:
        os.environ.pop("RECURRENCE_STATIC_SHAPES", None)
    else:
        os.environ["RECURRENCE_STATIC_SHAPES"] = _STATIC_SHAPES


def cases(shapes, dtypes, structures, salt=(), schedule=None):
    """Every structure (of `structures`) x variant x dtype x shape: (name,
    dtype, rng, a, b, kwargs), the operands as float64 CPU tensors, seeded
    per case, so that a shard of them (mine) draws the same operands as the
    whole run; every case on `schedule` where given."""
    for structure in structures:
        for variant in VARIANTS:
            for dtype in dtypes:
                for index, shape in enumerate(shapes):
                    if not mine():
                        continue
                    rng = np.random.default_rng(
                        [index, STRUCTURES.index(structure),
                         VARIANTS.index(variant), *salt])
                    a, b, kwargs = problem(structure, variant, shape, dtype,
                                           rng)
                    # Each structure runs half its shapes chunked (in
                    # chunks of 16: several, the last one shorter) and half
                    # sequential, a different half per structure.
                    if schedule:
                        kwargs.update(schedule=schedule)
                    elif (index + STRUCTURES.index(structure)) % 2:
                        kwargs.update(schedule="sequential")
                    else:
                        kwargs.update(schedule="chunked", chunk_size=16)
                    # Half the cases compile for their own shapes, half
                    # for any shape (what recurrence.torch does after
                    # $RECURRENCE_STATIC_SHAPES shapes of one scan).
                    static = (index + VARIANTS.index(variant)) % 2 == 0
                    os.environ["RECURRENCE_STATIC_SHAPES"] = (
                        "1000000" if static else "0")
                    name = (f"{structure}.{variant}."
                            f"{str(dtype).split('.')[-1]} "
                            f"{kwargs['schedule']} "
                            f"{'static' if static else 'dynamic'} "
                            f"(B,T,N,D)={shape[0] + shape[1:]}")
                    try:
                        yield name, dtype, rng, a, b, kwargs
                    finally:
                        restore_static_shapes()


def compare(name, compute, a, b, kwargs, dtype, tolerance):
    """compute(a, b, kwargs, dtype, device) on the GPU against the CPU (same
    dtype) and against float64 on the operands rounded to dtype (init
    stays in the state's type); prints the check's line, returns 1 if it
    failed."""
    try:
        gpu = compute(a, b, kwargs, dtype, "cuda")
        torch.cuda.synchronize()
    except Exception as error:  # reported, counted
        return report_failure(name, error)
    cpu = compute(a, b, kwargs, dtype, "cpu")
    state = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    exact_kwargs = {k: rounded(v, state if k == "init" else dtype)
                    for k, v in kwargs.items()}
    exact = compute(rounded(a, dtype), rounded(b, dtype), exact_kwargs,
                    torch.float64, "cpu")
    vs_cpu = max(relative_error(g, c) for g, c in zip(gpu, cpu))
    vs_exact = max(relative_error(g, e) for g, e in zip(gpu, exact))
    ok = (all(g.is_cuda for g in gpu) and vs_cpu <= tolerance
          and vs_exact <= 2 * tolerance)
    print(f"{'PASS' if ok else 'FAIL'} {name}: vs cpu {vs_cpu:.2e}, vs "
          f"float64 {vs_exact:.2e} (tolerance {tolerance:.1e} vs cpu, "
          f"{2 * tolerance:.1e} vs float64)", flush=True)
    return 0 if ok else 1


# The forward's tolerance per operand dtype; a gradient sums over up to T
# steps, so it gets a wider bound.
FORWARD_ROUNDING = {torch.float32: 2e-5, torch.float64: 1e-12,
                    torch.bfloat16: 2 ** -8 + 2e-5,
                    torch.float16: 2 ** -11 + 2e-5}
BACKWARD_ROUNDING = {torch.float32: 1e-4, torch.bfloat16: 2 ** -7}


def compare_gradients(name, rng, a, b, kwargs, dtype):
    """The gradients of a weighting of the outputs drawn from `rng`, on the
    GPU against the CPU's of the same dtype and float64's; 1 if it
    failed."""
    weights = [torch.tensor(rng.uniform(-1, 1, o.shape))
               for o in run(a, b, kwargs, torch.float64, "cpu")]
    return compare(f"backward {name}",
                   lambda *args: gradients_of(*args, weights), a, b, kwargs,
                   dtype, BACKWARD_ROUNDING[dtype])


def correctness(shapes, dtypes, structures):
    """The forward on the GPU against the CPU and float64."""
    return sum(compare(name, run, a, b, kwargs, dtype,
                       FORWARD_ROUNDING[dtype])
               for name, dtype, _, a, b, kwargs in cases(shapes, dtypes,
                                                         structures))


def blelloch(shapes, dtypes, structures):
    """The Blelloch scan schedule (a kernel per pass and per sweep level),
    forward and backward (whose adjoint scans take the same schedule),
    every structure and variant, against the CPU and float64."""
    failures = 0
    for name, dtype, rng, a, b, kwargs in cases(shapes, dtypes, structures,
                                                salt=(13,), schedule="scan"):
        failures += compare(name, run, a, b, kwargs, dtype,
                            FORWARD_ROUNDING[dtype])
        failures += compare_gradients(name, rng, a, b, kwargs, dtype)
    return failures


def long_sequence():
    """One sequence of more than a million steps (diagonal, f32) with a long
    memory (a_t near 1: every chunk's carry matters), with the schedule the
    cost model picks (chunked in chunks of 256: 4097 carries in turn), the
    Blelloch scan, chunked<1024> and sequential."""
    rng = np.random.default_rng(11)
    shape = ((1,), (1 << 20) + 3, 8, 1)
    failures = 0
    for schedule, chunk in (("auto", None), ("scan", None), ("chunked", 1024),
                            ("sequential", None)):
        _, b, kwargs = problem("diagonal", "reverse_init_final", shape,
                               torch.float32, rng)
        a = torch.tensor(rng.uniform(0.9995, 1.0, (1, shape[1], shape[2])))
        kwargs.update(schedule=schedule, chunk_size=chunk)
        failures += compare(
            f"long diagonal.reverse_init_final.float32 {schedule}"
            f"{f'<{chunk}>' if chunk else ''} "
            f"(B,T,N)={shape[0] + shape[1:3]}",
            run, a, b, kwargs, torch.float32, 2e-5)
    return failures


def leaves(x, dtype, device, state=False):
    """x cast as `cast` does, as leaf tensors that require grad; returns
    (the cast x, the list of its leaves)."""
    if x is None:
        return None, []
    if isinstance(x, tuple):
        parts = [leaves(y, dtype, device) for y in x]
        return tuple(p for p, _ in parts), [l for _, ls in parts for l in ls]
    leaf = cast(x, dtype, device, state).detach().requires_grad_()
    return leaf, [leaf]


def gradients_of(a, b, kwargs, dtype, device, weights):
    """The gradients of sum(weights * outputs) in every tensor operand."""
    a, grads = leaves(a, dtype, device)
    b, more = leaves(b, dtype, device)
    grads += more
    kw = dict(kwargs)
    for key in ("init", "readout"):
        if key in kw:
            kw[key], more = leaves(kw[key], dtype, device, key == "init")
            grads += more
    out = rt.scan(a, b, **kw)
    outs = out if isinstance(out, tuple) else (out,)
    loss = sum((o.double() * w.to(device)).sum()
               for o, w in zip(outs, weights))
    loss.backward()
    return [g.grad for g in grads]


def backward(shapes, dtypes, structures):
    """The gradients of a random weighting of the outputs, on the GPU
    against the CPU's of the same dtype and float64's."""
    return sum(compare_gradients(name, rng, a, b, kwargs, dtype)
               for name, dtype, rng, a, b, kwargs in cases(
                   shapes, dtypes, structures, salt=(7,)))


def double_backward():
    """The double backward (the compiler's second-order gradient) of
    diagonal, block_diagonal and dplr scans with init and the final state,
    whole and over packed sequences (lengths 10, 0, 20 and 7, each with its
    own init), float64 on the GPU against the same on the CPU: the
    gradients, with respect to the operands and the cotangent, of a
    weighted sum of the first gradients."""
    failures = 0
    problems = [(structure, m, shape, packed)
                for structure, m, shape in [("diagonal", None, (2, 37, 6)),
                                            ("block_diagonal", 2, (2, 37, 6)),
                                            ("dplr", 1, (2, 37, 5))]
                for packed in (False, True)]
    bounds = [0, 10, 10, 30, 37]
    for structure, m, (B, T, N), packed in problems:
        rng = np.random.default_rng([B, T, N, 11])
        if structure == "diagonal":
            a = [rng.uniform(0.5, 0.9, (B, T, N))]
        elif structure == "block_diagonal":
            a = [rng.uniform(-0.4, 0.4, (B, T, N // m, m, m))]
        else:
            a = [rng.uniform(0.5, 0.9, (B, T, N)),
                 rng.uniform(-0.3, 0.3, (B, T, N, m)),
                 rng.uniform(-0.3, 0.3, (B, T, N, m))]
        b = rng.uniform(-1, 1, (B, T, N))
        init = rng.uniform(-1, 1, (B, len(bounds) - 1, N) if packed
                           else (B, N))
        g = rng.uniform(-1, 1, (B, T, N))
        label = structure + (f"<{m}>" if m else "") + (
            f" packed {bounds}" if packed else "")

        def grads(device):
            ts = [torch.tensor(x, device=device).requires_grad_()
                  for x in a + [b, init, g]]
            ops, tb, ti, tg = ts[:len(a)], ts[-3], ts[-2], ts[-1]
            offsets = (torch.tensor(bounds, device=device) if packed
                       else None)
            h, last = rt.scan(tuple(ops) if len(ops) > 1 else ops[0], tb,
                              init=ti, structure=structure,
                              return_final_state=True, offsets=offsets)
            first = torch.autograd.grad((h * tg).sum() + last.sum(),
                                        ops + [tb, ti], create_graph=True)
            weight = sum((f * torch.cos(torch.arange(
                f.numel(), device=device, dtype=f.dtype)).reshape(
                    f.shape)).sum() for f in first)
            return torch.autograd.grad(weight, ts)
        name = f"double backward {label} (B,T,N)=({B},{T},{N}) float64"
        try:
            got = grads("cuda")
            torch.cuda.synchronize()
        except Exception as error:  # reported, counted
            failures += report_failure(name, error)
            continue
        want = grads("cpu")
        error = max(relative_error(x, y) for x, y in zip(got, want))
        failures += report(name, error <= 1e-10, f"vs CPU {error:.2e}")
    return failures


def long_backward():
    """The gradients of long sequences in bf16 and f32, chunked (what the
    cost model picks for them): each chunk's kernel widens only the steps
    it reads, so thousands of threads each reading thousands of steps fit
    (a widened [T] column per thread once overflowed the device heap)."""
    failures = 0
    for shape in (((1,), 4097, 64, 1), ((2,), 65536, 48, 1)):
        for dtype in (torch.float32, torch.bfloat16):
            rng = np.random.default_rng([shape[1], shape[2]])
            a, b, kwargs = problem("diagonal", "reverse_init_final", shape,
                                   dtype, rng)
            kwargs.update(schedule="chunked", chunk_size=64)
            failures += compare_gradients(
                f"long diagonal.reverse_init_final.{str(dtype)[6:]} "
                f"chunked<64> (B,T,N)={shape[0] + shape[1:3]}", rng, a, b,
                kwargs, dtype)
    return failures


USER_IR = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                            "python-bindings", "tests",
                            "gated_diagonal.mlir")).read()


def user_ir():
    """recurrence.compile(text, target="cuda") on user IR (a scan and an
    elementwise op after it): against its CPU compile and float64."""
    import recurrence
    rng = np.random.default_rng(11)
    shape = (3, 301, 70)
    a = rng.uniform(0, 1, shape)
    b = rng.uniform(-1, 1, shape)
    h = np.zeros(shape[::2])
    exact = np.empty(shape)
    for t in range(shape[1]):
        h = a[:, t] * h + b[:, t]
        exact[:, t] = h * b[:, t]
    try:
        gpu = recurrence.compile(USER_IR, "gated", target="cuda")
        got = gpu(torch.tensor(a, dtype=torch.float32, device="cuda"),
                  torch.tensor(b, dtype=torch.float32, device="cuda"),
                  result_shapes=[shape])
        torch.cuda.synchronize()
    except Exception as error:  # reported, counted
        return report_failure("compile(target='cuda') user IR", error)
    cpu = recurrence.compile(USER_IR, "gated")(
        a.astype(np.float32), b.astype(np.float32), result_shapes=[shape])
    vs_cpu = relative_error(got, torch.tensor(cpu))
    vs_exact = relative_error(got, torch.tensor(exact))
    ok = got.is_cuda and vs_cpu <= 2e-5 and vs_exact <= 4e-5
    print(f"{'PASS' if ok else 'FAIL'} compile(target='cuda') user IR (scan, "
          f"then an elementwise op) {shape}: vs cpu {vs_cpu:.2e}, vs float64 "
          f"{vs_exact:.2e}", flush=True)
    # A buffer of other strides than the entry's (contiguous) is refused.
    try:
        gpu(torch.zeros(shape[::-1], device="cuda").transpose(0, 2),
            torch.zeros(shape, device="cuda"), result_shapes=[shape])
        refused = "nothing"
    except ValueError as error:
        refused = str(error)
    ok_refused = "argument #0" in refused and "contiguous" in refused
    print(f"{'PASS' if ok_refused else 'FAIL'} compile(target='cuda') user "
          f"IR on a transposed view: {refused}", flush=True)
    ok = ok and ok_refused
    # Freeing a freshly compiled cuda module once corrupted the heap (its
    # unwind tables unregistered wrongly): the allocations after it crashed.
    del gpu
    gc.collect()
    for _ in range(20):
        torch.tensor(rng.uniform(-1, 1, (2, 1223, 96))).sum()
    print("PASS a cuda module freed, then host allocations", flush=True)
    return 0 if ok else 1


PACKED_IR = """
func.func @packed(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>, %h0: tensor<?x?x?xf32>, %o: tensor<?xi64>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d0 = tensor.dim %b, %c0 : tensor<?x?x?xf32>
  %d1 = tensor.dim %b, %c1 : tensor<?x?x?xf32>
  %d2 = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %s = tensor.dim %h0, %c1 : tensor<?x?x?xf32>
  %h_dest = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %l_dest = tensor.empty(%d0, %s, %d2) : tensor<?x?x?xf32>
  %h, %l = recurrence.scan diagonal SCHEDULE transition(%a : tensor<?x?x?xf32>)
      input(%b : tensor<?x?x?xf32>) init(%h0 : tensor<?x?x?xf32>)
      offsets(%o : tensor<?xi64>) outs(%h_dest, %l_dest : tensor<?x?x?xf32>, tensor<?x?x?xf32>)
      -> tensor<?x?x?xf32>, tensor<?x?x?xf32>
  return %h, %l : tensor<?x?x?xf32>, tensor<?x?x?xf32>
}
"""


def packed_sequences():
    """Packed sequences (offsets, i.e. cu_seqlens) on the GPU, sequential
    and auto (which keeps them sequential): against float64 loops over each
    sequence alone."""
    import recurrence
    rng = np.random.default_rng(12)
    lengths = [0, 1, 700, 33, 0, 2000, 64, 5, 0]
    offsets = np.cumsum([0] + lengths)
    steps, count, channels = int(offsets[-1]), len(lengths), 300
    a = rng.uniform(0.9, 1, (2, steps, channels))
    b = rng.uniform(-1, 1, (2, steps, channels))
    h0 = rng.uniform(-1, 1, (2, count, channels))
    want, want_last = np.empty_like(b), h0.copy()
    for s in range(count):
        h = h0[:, s].copy()
        for t in range(offsets[s], offsets[s + 1]):
            h = a[:, t] * h + b[:, t]
            want[:, t] = h
        want_last[:, s] = h
    failures = 0
    cuda = lambda x: torch.tensor(x, dtype=torch.float32, device="cuda")
    for schedule in ("schedule sequential", ""):
        try:
            gpu = recurrence.compile(PACKED_IR.replace("SCHEDULE", schedule),
                                     "packed", target="cuda")
            got, last = gpu(cuda(a), cuda(b), cuda(h0),
                            torch.tensor(offsets, device="cuda"),
                            result_shapes=[b.shape, h0.shape])
            torch.cuda.synchronize()
        except Exception as error:  # reported, counted
            failures += report_failure(
                f"packed sequences {schedule or 'auto'}", error)
            continue
        error = max(relative_error(got, torch.tensor(want)),
                    relative_error(last, torch.tensor(want_last)))
        ok = error <= 4e-5
        print(f"{'PASS' if ok else 'FAIL'} packed sequences (offsets) "
              f"{schedule or 'auto'}, lengths {lengths}: vs float64 "
              f"{error:.2e}",
              flush=True)
        failures += 0 if ok else 1
    return failures


def packed_torch():
    """recurrence.torch over packed sequences on CUDA tensors (int32
    cu_seqlens on the device), forward and every gradient, against the
    float64 CPU run of the same call (which the CPU tests check against
    each sequence alone)."""
    rng = np.random.default_rng(13)
    lengths = [0, 1, 300, 17, 0, 900, 5, 0]
    offsets = np.cumsum([0] + lengths)
    steps, count, n = int(offsets[-1]), len(lengths), 96
    u = lambda *shape: rng.uniform(-1, 1, shape)
    problems = {
        "diagonal": (rng.uniform(0.9, 1, (2, steps, n)), u(2, steps, n),
                     dict(init=u(2, count, n), return_final_state=True)),
        "dplr": ((rng.uniform(0.5, 0.9, (2, steps, n)),
                  u(2, steps, n, 1) / 20, u(2, steps, n, 1) / 20),
                 u(2, steps, n),
                 dict(init=u(2, count, n), return_final_state=True,
                      reverse=True)),
        "identity": (None, (u(1, steps, 16), u(1, steps, 8)),
                     dict(readout=u(1, steps, 16),
                          init=u(1, count, 16, 8), return_final_state=True)),
    }
    failures = 0
    for structure, (a, b, kwargs) in problems.items():
        def grads(device, dtype):
            leaf = lambda x: (None if x is None else
                              tuple(map(leaf, x)) if isinstance(x, tuple)
                              else torch.tensor(x, dtype=dtype,
                                                device=device,
                                                requires_grad=True))
            ta, tb = leaf(a), leaf(b)
            kw = {k: leaf(v) if isinstance(v, np.ndarray) else v
                  for k, v in kwargs.items()}
            bounds = torch.tensor(offsets, dtype=torch.int32, device=device)
            outs = rt.scan(ta, tb, structure=structure, offsets=bounds, **kw)
            flat = [x for x in (ta if isinstance(ta, tuple) else (ta,))
                    + (tb if isinstance(tb, tuple) else (tb,))
                    + tuple(v for v in kw.values()
                            if isinstance(v, torch.Tensor)) if x is not None]
            weights = [torch.tensor(np.cos(np.arange(o.numel())).reshape(
                o.shape), dtype=dtype, device=device) for o in outs]
            sum((o * w).sum() for o, w in zip(outs, weights)).backward()
            return [o.detach().double().cpu() for o in outs] + [
                x.grad.double().cpu() for x in flat]
        failures += cuda_against_cpu(
            f"packed torch {structure} forward and backward, lengths "
            f"{lengths}", grads)
    return failures + checked_offsets_changed_in_place()


def checked_offsets_changed_in_place():
    """CUDA offsets are read back once per tensor and version: the same
    tensor, then changed in place to bounds that do not end at T, must be
    checked anew and refused."""
    name = "packed torch: CUDA offsets changed in place are checked anew"
    a = torch.full((1, 6, 4), 0.5, device="cuda")
    b = torch.ones(1, 6, 4, device="cuda")
    bounds = torch.tensor([0, 2, 6], dtype=torch.int64, device="cuda")
    try:
        first = rt.scan(a, b, offsets=bounds)
        again = rt.scan(a, b, offsets=bounds)
        torch.cuda.synchronize()
        same = torch.equal(first, again)
        bounds[2] = 5
        try:
            rt.scan(a, b, offsets=bounds)
        except ValueError as error:
            refused = "from 0 to T = 6" in str(error)
        else:
            refused = False
    except Exception as error:  # reported, counted
        return report_failure(name, error)
    ok = same and refused
    print(f"{'PASS' if ok else 'FAIL'} {name}: repeated call equal {same}, "
          f"refused after the change {refused}", flush=True)
    return 0 if ok else 1


def cuda_against_cpu(name, run):
    """Runs `run(device, dtype)` (a list of tensors) on CUDA in float32 and
    on the CPU in float64, and prints the check's line: their largest
    relative error, passing at 1e-4. Returns the failure count."""
    try:
        got = run("cuda", torch.float32)
        torch.cuda.synchronize()
    except Exception as error:  # reported, counted
        return report_failure(name, error)
    want = run("cpu", torch.float64)
    error = max(relative_error(g, w) for g, w in zip(got, want))
    ok = error <= 1e-4
    print(f"{'PASS' if ok else 'FAIL'} {name}: vs float64 CPU {error:.2e}",
          flush=True)
    return 0 if ok else 1


def time_contiguous():
    """Scans on time-contiguous operands (Mamba's [B, N, T], passed as
    their transposed [B, T, N] views), read in place by kernels compiled
    for that layout, with the output written in it: every schedule, forward
    and reverse with init and the final state, bf16 operands too, and the
    backward through them; against the float64 CPU run of the same values.
    The output's layout is part of the check."""
    failures = 0
    # Sequential: warps over chunks of each sequence (T not a multiple of
    # their tile of 128 steps, fewer sequences than a block's 4 warps; 547
    # chunks, which look back over several windows of 32), a warp per whole
    # sequence (T = 1; 4096 sequences).
    cases = [((2, 1000, 33), "sequential", None),
             ((1, 70000, 3), "sequential", None),
             ((3, 1, 5), "sequential", None),
             ((1, 257, 2), "sequential", None),
             ((64, 300, 64), "sequential", None),
             ((2, 1000, 33), "chunked", 64),
             ((3, 1, 5), "auto", None),
             ((1, 4097, 64), "auto", None)]
    # The front door's default: the compiler says its warp scan reads this
    # layout in place, so the output takes it.
    for (B, T, N), schedule, chunk in cases:
        for reverse in (False, True):
            for dtype in (torch.float32, torch.bfloat16):
                rng = np.random.default_rng(B * T * N + reverse)
                a64 = torch.tensor(rng.uniform(0.5, 1.0, (B, N, T)))
                b64 = torch.tensor(rng.uniform(-1, 1, (B, N, T)))
                init64 = torch.tensor(rng.uniform(-1, 1, (B, N)))
                layouts = []

                def run(device, precision):
                    narrow = dtype if device == "cuda" else precision
                    state = (torch.float32 if device == "cuda"
                             else precision)
                    a, b = (x.to(narrow).to(device).requires_grad_()
                            for x in (rounded(a64, dtype),
                                      rounded(b64, dtype)))
                    init = init64.to(state).to(device)
                    h, last = rt.scan(
                        a.transpose(1, 2), b.transpose(1, 2), init=init,
                        reverse=reverse, return_final_state=True,
                        schedule=schedule, chunk_size=chunk)
                    if device == "cuda":
                        layouts.append(h.stride())
                    # Weights that the operands' dtype holds exactly: the
                    # output's cotangent is then the same on both sides
                    # (unrounded, the bf16 cotangents' rounding summed over
                    # 210000 outputs reached 2.4e-2 at one of them).
                    weight = torch.cos(torch.arange(
                        h.numel(), dtype=torch.float64)).to(dtype).to(
                            state).to(device).reshape(h.shape)
                    grads = torch.autograd.grad(
                        (h.to(state) * weight).sum() + last.sum(), (a, b))
                    return [h.detach(), last.detach(), *grads]
                name = (f"time-contiguous {schedule}"
                        f"{f'<{chunk}>' if chunk else ''} (B,N,T)="
                        f"({B},{N},{T}) {str(dtype)[6:]}"
                        f"{' reverse' if reverse else ''}: output layout "
                        f"and gradients")
                try:
                    got = run("cuda", dtype)
                    torch.cuda.synchronize()
                except Exception as error:  # reported, counted
                    failures += report_failure(name, error)
                    continue
                want = run("cpu", torch.float64)
                error = max(relative_error(g, w) for g, w in zip(got, want))
                # Measured on the H100: at most 7.7e-7 (f32) and 3.2e-3
                # (bf16, its outputs' rounding) over these cases.
                tolerance = 1e-5 if dtype == torch.float32 else 2 ** -7
                in_layout = layouts[0] == (N * T, 1, T) or T == 1
                failures += report(
                    name, error <= tolerance and in_layout,
                    f"vs float64 CPU {error:.2e}, output strides "
                    f"{layouts[0]}")
    return failures


def model_ops_user_ir():
    """Every model op as user IR (test_model_gradients.py's functions,
    float64), compiled for cuda: the op and the gradient that
    -recurrence-differentiate derives for it, against the CPU compile of
    the same IR on the same values."""
    import recurrence
    from test_model_gradients import MODELS, operands, source
    failures = 0
    for model in sorted(MODELS):
        name = f"model op {model} as user IR, forward and derived gradient"
        text = source(model)
        module = recurrence.Module.parse(text)
        module.run_pipeline("builtin.module(recurrence-differentiate)")
        rng = np.random.default_rng(sum(map(ord, model)))
        args = operands(model, rng)
        cpu_forward = recurrence.compile(text, "f")
        outs = cpu_forward(*args)
        outs = outs if isinstance(outs, tuple) else (outs,)
        bars = [rng.uniform(-1, 1, o.shape) for o in outs]
        cpu = list(outs) + list(recurrence.compile(str(module), "f_grad")(
            *args, *bars))
        try:
            device = [torch.tensor(x, device="cuda") for x in args + bars]
            forward = recurrence.compile(text, "f", target="cuda")(
                *device[:len(args)], result_shapes=[o.shape for o in outs])
            forward = forward if isinstance(forward, tuple) else (forward,)
            grads = recurrence.compile(str(module), "f_grad",
                                       target="cuda")(
                *device, result_shapes=[x.shape for x in args])
            grads = grads if isinstance(grads, tuple) else (grads,)
            torch.cuda.synchronize()
        except Exception as error:  # reported, counted
            failures += report_failure(name, error)
            continue
        error = max(relative_error(g, torch.tensor(c))
                    for g, c in zip(list(forward) + list(grads), cpu))
        failures += report(name, error <= 1e-10, f"vs cpu {error:.2e}")
    return failures


def models_torch_cuda():
    """recurrence.torch's model functions on CUDA tensors, both ways: by
    default the model ops compiled for cuda with their derived gradients,
    and with $RECURRENCE_CUDA_MODELS=0 composed of scans and torch ops
    (test_torch_compiled_model.py's cases): outputs and the gradients of a
    random weighting against the float64 CPU run of the same values. The
    cases are shared among the workers one by one."""
    from test_torch_compiled_model import MATRIX, run, tensors
    failures = 0
    for form in ("compiled", "composed"):
        with models_form(form):
            for model, dtype, case in MATRIX:
                if mine():
                    failures += model_torch_cuda(form, model, dtype, case,
                                                 run, tensors)
    return failures


@contextlib.contextmanager
def models_form(form):
    """Model functions on CUDA tensors run `form` ("compiled", the
    default, or "composed") within; the caller's setting after."""
    saved = os.environ.get("RECURRENCE_CUDA_MODELS")
    os.environ["RECURRENCE_CUDA_MODELS"] = "1" if form == "compiled" else "0"
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("RECURRENCE_CUDA_MODELS", None)
        else:
            os.environ["RECURRENCE_CUDA_MODELS"] = saved


def model_torch_cuda(form, model, dtype, case, run, tensors):
    """One case of models_torch_cuda, run the way `form` names (an empty
    batch is composed either way); returns the failure count."""
    final, schedule = case[6:]
    name = f"torch {model} on cuda, {form} {str(dtype)[6:]} {case}"
    cpu = tensors(model, case, torch.float64)
    rng = np.random.default_rng(5)
    outs = run(model, cpu, final, schedule)
    weights = [torch.tensor(rng.uniform(-1, 1, o.shape)) for o in outs]
    leaves = [v for v in cpu if v is not None]
    want = list(outs) + list(torch.autograd.grad(
        sum((o * w).sum() for o, w in zip(outs, weights)), leaves))
    try:
        gpu = [None if v is None else
               v.detach().to(dtype).cuda().requires_grad_() for v in cpu]
        outs = run(model, gpu, final, schedule)
        compiled = type(outs[0].grad_fn).__name__ == "_CompiledModelBackward"
        got = list(outs) + list(torch.autograd.grad(
            sum((o * w.to(o)).sum() for o, w in zip(outs, weights)),
            [v for v in gpu if v is not None]))
        torch.cuda.synchronize()
    except Exception as error:  # reported, counted
        return report_failure(name, error)
    error = max(relative_error(g, w) for g, w in zip(got, want))
    tolerance = 1e-10 if dtype == torch.float64 else 1e-4
    ran_as_named = compiled == (form == "compiled" and 0 not in case[0])
    ran = "compiled" if compiled else "composed"
    return report(
        name, error <= tolerance and all(g.is_cuda for g in got)
        and ran_as_named, f"vs float64 CPU {error:.2e}, {ran}")


def bench_models():
    """The selective SSM (Mamba's shapes) and the delta rule on the GPU,
    forward and forward + backward: the compiled model op against the
    composed form (torch ops around the scan, which builds the gates
    exp(delta A) as a [B, T, N, Dm] tensor), and against a copy of the
    bytes the op must move at least. Small shapes first, each part printed
    as it is timed."""
    for shape in MODEL_SHAPES.values():
        bench_models_at(*shape)


# The model benchmarks' (B, T, Dm, N) of the selective SSM and heads H of
# the delta rule, small first.
MODEL_SHAPES = {"small": (1, 256, 64, 16, 1), "large": (4, 2048, 768, 16, 8)}


def model_inputs(B, T, Dm, N, H):
    """Random CUDA inputs of the selective SSM at Mamba's (B, T, Dm, N)
    (x, delta, A, B, C) and of the delta rule at (H, T, 64, 64)
    (q, k, v, beta), with the decays of a trained model: delta in
    [0, 0.1), A < 0, unit keys, beta in [0, 1)."""
    x, delta = torch.randn(B, T, Dm, device="cuda"), torch.rand(
        B, T, Dm, device="cuda") * 0.1
    A = -torch.rand(Dm, N, device="cuda")
    Bm, C = torch.randn(B, T, N, device="cuda"), torch.randn(
        B, T, N, device="cuda")
    q, k = torch.randn(H, T, 64, device="cuda"), torch.nn.functional.\
        normalize(torch.randn(H, T, 64, device="cuda"), dim=-1)
    v, beta = torch.randn(H, T, 64, device="cuda"), torch.rand(
        H, T, device="cuda")
    return (x, delta, A, Bm, C), (q, k, v, beta)


def bench_models_at(B, T, Dm, N, H):
    """bench_models at Mamba's (B, T, Dm, N) and the delta rule's
    (H, T, 64, 64)."""
    ssm, delta_rule = model_inputs(B, T, Dm, N, H)
    for name, fn, inputs, shape in (
            ("selective_ssm", rt.selective_ssm, ssm,
             f"(B,T,Dm,N)=({B},{T},{Dm},{N})"),
            ("delta_rule", rt.delta_rule, delta_rule,
             f"(B,T,dk,dv)=({H},{T},64,64)")):
        leaves = [t.detach().requires_grad_() for t in inputs]
        # x, delta, B, C (or q, k, v, beta) read, y written.
        moved = sum(t.numel() for t in inputs) * 4 + inputs[0].numel() * 4
        copy = copy_seconds(moved)
        times = {}

        def forward_backward():
            for t in leaves:
                t.grad = None
            fn(*leaves).sum().backward()

        for form in ("compiled", "composed"):
            with models_form(form):
                with torch.no_grad():
                    forward = seconds(lambda: fn(*inputs), reps=10)
                times[form] = (forward, seconds(forward_backward, reps=5))
            print(f"BENCH-GPU-MODEL-PART {name} {shape} {form}: forward_ms="
                  f"{forward * 1e3:.3f} forward_backward_ms="
                  f"{times[form][1] * 1e3:.3f}", flush=True)
        (f1, b1), (f2, b2) = times["compiled"], times["composed"]
        print(f"BENCH-GPU-MODEL {name} {shape} float32 forward_ms="
              f"{f1 * 1e3:.3f} vs_copy={copy / f1:.3f} composed_ms="
              f"{f2 * 1e3:.3f} speedup={f2 / f1:.2f} "
              f"forward_backward_ms={b1 * 1e3:.3f} composed_ms="
              f"{b2 * 1e3:.3f} speedup={b2 / b1:.2f}", flush=True)


def decode_torch():
    """Each model's decode steps (recurrence.torch.<model>_step) on CUDA
    tensors in float32, a prefix decoded token by token from an init, and
    the gradients of the inits through the steps, against the float64 CPU
    whole-sequence op (test_decode.py's cases)."""
    from test_decode import TORCH_MODELS, T, states, torch_cases
    failures = 0
    for model in TORCH_MODELS:
        def run(device, dtype):
            # Decoded on CUDA, the whole sequence at once on the CPU.
            decode = device == "cuda"
            rng = np.random.default_rng(sum(map(ord, model)))
            whole, step, state0 = torch_cases(rng, dtype, device)[model]
            if decode:
                state, ys = state0, []
                for t in range(T):
                    y, state = step(t, state)
                    ys.append(y)
                y = torch.stack(ys, 1)
            else:
                y, state = whole(state0)
            weight = torch.cos(torch.arange(y.numel(), device=device,
                                            dtype=dtype)).reshape(y.shape)
            loss = (y * weight).sum() + sum((s * s).sum()
                                            for s in states(state))
            inits = list(states(state0))
            return [x.detach() for x in (
                y, *states(state), *torch.autograd.grad(loss, inits))]
        failures += cuda_against_cpu(
            f"decode torch {model}: {T} steps and the inits' gradients "
            f"(the CPU's: the whole sequence)", run)
    return failures


def seconds(f, reps=20):
    """The best of `reps` runs of f, in seconds, by CUDA events around each
    run. The runs are queued back to back and awaited once at the end (as
    triton.testing.do_bench does), so that where the GPU is the slower of
    the two, the GPU time of one call is measured, not the host's time to
    issue it; where a call's kernels take less than the host's time to
    issue it (small shapes), that time is what shows. The per-call cost
    from Python is measured on its own (the overhead check)."""
    f()
    torch.cuda.synchronize()
    events = [(torch.cuda.Event(enable_timing=True),
               torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    for start, end in events:
        start.record()
        f()
        end.record()
    torch.cuda.synchronize()
    return min(start.elapsed_time(end) for start, end in events) / 1e3


def scan_bytes(a, b):
    """The bytes a forward scan of f32 `a` and `b` moves: both read, the
    output (b's shape) written."""
    return a.numel() * 4 + 2 * b.numel() * 4


def copy_seconds(moved):
    """The best time of a device-to-device copy that reads and writes
    `moved` bytes in all (moved / 2 each way): the ceiling a benchmark
    states its ratio to, measured in the same run."""
    source = torch.empty(moved // 8, device="cuda")
    target = torch.empty_like(source)
    return seconds(lambda: target.copy_(source))


def baseline_scan(baselines):
    """accelerated_scan's Triton scan (time-contiguous (B, C, T)), if its
    source is in `baselines`."""
    if not baselines or not os.path.isdir(os.path.join(baselines,
                                                       "accelerated_scan")):
        return None
    sys.path.insert(0, baselines)
    try:
        from accelerated_scan.scalar import scan
    except Exception as error:  # reported, not fatal
        print(f"BASELINE accelerated_scan unavailable: {error}", flush=True)
        return None
    return scan


def host_seconds(f, reps=5):
    """The best of `reps` timed runs of f (which waits for its result), in
    seconds, by the host clock: for a framework on streams of its own."""
    f()
    return best_seconds(reps, f)


def other_baselines(a, b, m, want):
    """torch's associative_scan (compiled) and jax.lax.associative_scan
    (jitted) of the same recurrence on the same values, by the combine of
    (A, x) pairs: elementwise for diagonal, batched m x m products for
    blocks. One (name, seconds, relative error to `want`) per framework that
    runs; a framework that fails is reported and skipped."""
    B, T = b.shape[0], b.shape[1]
    x = b if m is None else b.reshape(B, T, -1, m, 1)
    results = []

    def pointwise(left, right):
        return left[0] * right[0], right[0] * left[1] + right[1]

    def blocks(left, right):
        return right[0] @ left[0], right[0] @ left[1] + right[1]

    try:
        from torch._higher_order_ops.associative_scan import associative_scan
        mode = "pointwise" if m is None else "generic"
        run = torch.compile(lambda a, x: associative_scan(
            pointwise if m is None else blocks, (a, x), dim=1,
            combine_mode=mode)[1])
        got = run(a, x).reshape(b.shape)
        results.append(("torch_associative_scan",
                        seconds(lambda: run(a, x), reps=5),
                        relative_error(got, want)))
    except Exception as error:  # reported, not fatal
        print(f"BASELINE torch associative_scan failed: "
              f"{type(error).__name__}: {str(error)[:200]}", flush=True)
    try:
        # JAX must not take most of the GPU's memory from torch.
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
        import jax
        run = jax.jit(lambda a, x: jax.lax.associative_scan(
            pointwise if m is None else blocks, (a, x), axis=1)[1])
        aj, xj = (jax.dlpack.from_dlpack(t.contiguous()) for t in (a, x))
        got = torch.from_dlpack(run(aj, xj).block_until_ready())
        results.append(("jax_associative_scan",
                        host_seconds(
                            lambda: run(aj, xj).block_until_ready()),
                        relative_error(got.reshape(b.shape), want)))
    except Exception as error:  # reported, not fatal
        print(f"BASELINE jax associative_scan failed: "
              f"{type(error).__name__}: {str(error)[:200]}", flush=True)
    return results


BENCH_CASES = [("diagonal", (8, 16384, 1536), None),
               ("diagonal", (1, 262144, 256), None)] + [
    ("block_diagonal", (8, 4096, 512), m) for m in (2, 4, 8, 16)]


def bench_inputs(B, T, N, m):
    """a (diagonal, or m x m blocks scaled to keep the state bounded) and b,
    f32 on the GPU."""
    if m is None:
        a = torch.rand(B, T, N, device="cuda") * 0.9
    else:
        a = torch.rand(B, T, N // m, m, m, device="cuda") * (0.9 / m)
    return a, torch.randn(B, T, N, device="cuda")


def bench(baselines=None):
    """Diagonal f32 [B, T, N] and block_diagonal throughput against a
    device-to-device copy of the same bytes (inputs read plus outputs
    written), measured in the same run; diagonal also against
    accelerated_scan's Triton scan on the same values in its own layout."""
    accelerated = baseline_scan(baselines)
    for structure, (B, T, N), m in BENCH_CASES:
        a, b = bench_inputs(B, T, N, m)
        moved = scan_bytes(a, b)
        copy = copy_seconds(moved)
        ours = seconds(lambda: rt.scan(a, b, structure=structure))
        label = structure + (f"<{m}>" if m else "")
        line = (f"BENCH-GPU {label} (B,T,N)=({B},{T},{N}) layout=[B,T,N] "
                f"ms={ours * 1e3:.3f} GB/s={moved / ours / 1e9:.0f} "
                f"copy_GB/s={moved / copy / 1e9:.0f} "
                f"vs_copy={copy / ours:.3f}")
        # What each schedule would have taken: the cost model's check.
        line += " schedules:"
        for schedule, chunk in (("sequential", None), ("chunked", 16),
                                ("chunked", 32), ("chunked", 64),
                                ("chunked", 256), ("chunked", 1024)):
            took = seconds(lambda: rt.scan(a, b, structure=structure,
                                           schedule=schedule,
                                           chunk_size=chunk), reps=5)
            line += (f" {schedule}{f'<{chunk}>' if chunk else ''}="
                     f"{took * 1e3:.3f}ms")
        if m is None:
            # The Blelloch scan (a kernel per sweep level).
            took = seconds(lambda: rt.scan(a, b, schedule="scan"), reps=5)
            line += f" scan={took * 1e3:.3f}ms"
        if accelerated is not None and m is None:
            # The same values, time contiguous as it takes them.
            gates = a.transpose(1, 2).contiguous()
            tokens = b.transpose(1, 2).contiguous()
            want = accelerated(gates, tokens).transpose(1, 2)
            got = rt.scan(a, b, structure=structure)
            theirs = seconds(lambda: accelerated(gates, tokens))
            line += (f" accelerated_scan_ms={theirs * 1e3:.3f} "
                     f"speedup_vs_accelerated_scan={theirs / ours:.2f} "
                     f"agree={relative_error(got, want):.1e}")
        print(line, flush=True)
        if m is None:
            bench_time_contiguous(a, b, copy, moved, accelerated)


def bench_blelloch():
    """Few channels of one very long sequence, where the chunked schedule's
    carry walks thousands of chunks in turn and the Blelloch scan competes:
    every schedule's time and the copy's (bench/cost_model_gpu.py sweeps
    more shapes)."""
    B, T, N = 1, 1 << 20, 4
    a, b = bench_inputs(B, T, N, None)
    moved = scan_bytes(a, b)
    copy = copy_seconds(moved)
    want = rt.scan(a, b, schedule="sequential")
    line = f"BENCH-GPU diagonal (B,T,N)=({B},{T},{N}) layout=[B,T,N]"
    for schedule, chunk in (("auto", None), ("scan", None),
                            ("chunked", 1024), ("sequential", None)):
        run_it = lambda: rt.scan(a, b, schedule=schedule, chunk_size=chunk)
        took = seconds(run_it, reps=5)
        line += (f" {schedule}{f'<{chunk}>' if chunk else ''}="
                 f"{took * 1e3:.3f}ms (vs_copy={copy / took:.3f}, agree="
                 f"{relative_error(run_it(), want):.1e})")
    print(line, flush=True)


def bench_layouts(baselines=None):
    """The diagonal shapes of bench() in the time-contiguous layout only."""
    accelerated = baseline_scan(baselines)
    for structure, (B, T, N), m in BENCH_CASES:
        if m is None:
            a, b = bench_inputs(B, T, N, m)
            moved = scan_bytes(a, b)
            copy = copy_seconds(moved)
            bench_time_contiguous(a, b, copy, moved, accelerated)


def bench_time_contiguous(a, b, copy, moved, accelerated):
    """The diagonal scan of the same values stored time-contiguous
    ([B, N, T], Mamba's layout), passed as [B, T, N] views: as the front
    door runs it by default (read in place where the compiler says its
    kernels read that layout as fast as a copy), copied to [B, T, N] first
    ($RECURRENCE_IN_PLACE_LAYOUTS=0), and read in place by every schedule
    (=1); accelerated_scan takes that layout as it is."""
    B, T, N = b.shape
    gates = a.transpose(1, 2).contiguous()
    tokens = b.transpose(1, 2).contiguous()
    views = gates.transpose(1, 2), tokens.transpose(1, 2)
    leaves = [v.detach().requires_grad_() for v in views]

    def forward_backward():
        for leaf in leaves:
            leaf.grad = None
        rt.scan(*leaves).sum().backward()

    ours = seconds(lambda: rt.scan(*views))
    got = rt.scan(*views)
    default_both = seconds(forward_backward, reps=5)
    line = (f"BENCH-GPU diagonal (B,T,N)=({B},{T},{N}) layout=[B,N,T] "
            f"ms={ours * 1e3:.3f} GB/s={moved / ours / 1e9:.0f} "
            f"copy_GB/s={moved / copy / 1e9:.0f} vs_copy={copy / ours:.3f} "
            f"(the front door's default: output_strides={got.stride()}; "
            f"forward+backward={default_both * 1e3:.3f}ms);")
    os.environ["RECURRENCE_IN_PLACE_LAYOUTS"] = "0"
    copied = seconds(lambda: rt.scan(*views))
    copied_both = seconds(forward_backward, reps=5)
    line += (f" copied to [B,T,N] first: {copied * 1e3:.3f}ms, "
             f"forward+backward={copied_both * 1e3:.3f}ms;")
    os.environ["RECURRENCE_IN_PLACE_LAYOUTS"] = "1"
    line += " read in place:"
    for schedule, chunk in (("auto", None), ("sequential", None),
                            ("chunked", 64), ("chunked", 256),
                            ("chunked", 1024)):
        took = seconds(lambda: rt.scan(*views, schedule=schedule,
                                       chunk_size=chunk), reps=5)
        line += (f" {schedule}{f'<{chunk}>' if chunk else ''}="
                 f"{took * 1e3:.3f}ms")
    in_place_both = seconds(forward_backward, reps=5)
    os.environ.pop("RECURRENCE_IN_PLACE_LAYOUTS")
    line += f"; forward+backward in_place={in_place_both * 1e3:.3f}ms"
    if accelerated is not None:
        want = accelerated(gates, tokens).transpose(1, 2)
        theirs = seconds(lambda: accelerated(gates, tokens))
        line += (f" accelerated_scan_ms={theirs * 1e3:.3f} "
                 f"speedup_vs_accelerated_scan={theirs / ours:.2f} "
                 f"agree={relative_error(got, want):.1e}")
    print(line, flush=True)


def bench_frameworks():
    """Every benchmark shape against torch's and JAX's associative scans
    of the same values (a section of its own: their compilation is slow,
    and fails on some shapes)."""
    for structure, (B, T, N), m in BENCH_CASES:
        a, b = bench_inputs(B, T, N, m)
        ours = seconds(lambda: rt.scan(a, b, structure=structure))
        mine = rt.scan(a, b, structure=structure)
        label = structure + (f"<{m}>" if m else "")
        line = (f"BENCH-FRAMEWORKS {label} (B,T,N)=({B},{T},{N}) "
                f"layout=[B,T,N] ms={ours * 1e3:.3f}")
        for name, theirs, agree in other_baselines(a, b, m, mine):
            line += (f" {name}_ms={theirs * 1e3:.3f} "
                     f"speedup_vs_{name}={theirs / ours:.2f} "
                     f"agree_{name}={agree:.1e}")
        print(line, flush=True)


def backward_problem(B=8, T=16384, N=1536):
    """The diagonal f32 [B, T, N] forward + backward benchmark: the leaves
    a and b, the cotangent g, and a call that runs both passes."""
    a = (torch.rand(B, T, N, device="cuda") * 0.9).requires_grad_()
    b = torch.randn(B, T, N, device="cuda").requires_grad_()
    g = torch.randn(B, T, N, device="cuda")

    def forward_backward():
        a.grad = b.grad = None
        rt.scan(a, b).backward(g)

    return a, b, g, forward_backward


def accelerated_backward(a, b, g, scan):
    """backward_problem's values time-contiguous, as accelerated_scan's
    `scan` takes them: its leaves (gates, tokens) and a call that runs its
    forward + backward on them."""
    gates = a.detach().transpose(1, 2).contiguous().requires_grad_()
    tokens = b.detach().transpose(1, 2).contiguous().requires_grad_()
    cotangent = g.transpose(1, 2).contiguous()

    def forward_backward():
        gates.grad = tokens.grad = None
        scan(gates, tokens).backward(cotangent)

    return gates, tokens, forward_backward


def bench_backward(baselines=None):
    """Forward + backward of diagonal f32 [B, T, N] against a copy of the
    bytes it must move at least (a, b, the cotangent and y read; y, da, db
    written), and against accelerated_scan's forward + backward."""
    accelerated = baseline_scan(baselines)
    a, b, g, ours = backward_problem()
    B, T, N = a.shape

    moved = 7 * a.numel() * 4
    copy = copy_seconds(moved)
    mine = seconds(ours, reps=5)
    line = (f"BENCH-GPU diagonal forward+backward (B,T,N)=({B},{T},{N}) "
            f"layout=[B,T,N] ms={mine * 1e3:.3f} "
            f"vs_copy={copy / mine:.3f}")
    if accelerated is not None:
        gates, tokens, theirs = accelerated_backward(a, b, g, accelerated)
        ours()
        theirs()
        agree = max(relative_error(a.grad, gates.grad.transpose(1, 2)),
                    relative_error(b.grad, tokens.grad.transpose(1, 2)))
        other = seconds(theirs, reps=5)
        line += (f" accelerated_scan_ms={other * 1e3:.3f} "
                 f"speedup_vs_accelerated_scan={other / mine:.2f} "
                 f"agree={agree:.1e}")
    print(line, flush=True)


# A new process's first call of a small scan, its time printed in ms (the
# imports and the device's start not counted).
_FIRST_CALL = """
import sys, time, torch
import recurrence.torch as rt
device = sys.argv[1]
a = torch.full((1, 16, 64), 0.5, device=device)
b = torch.ones(1, 16, 64, device=device)
sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
sync()
start = time.perf_counter()
rt.scan(a, b, reverse=True)
sync()
print((time.perf_counter() - start) * 1e3)
"""


def first_call_ms(cache, device="cuda"):
    """_FIRST_CALL's time in a new process whose compile cache is the
    folder `cache`."""
    done = subprocess.run(
        [sys.executable, "-c", _FIRST_CALL, device], capture_output=True,
        text=True, env=dict(os.environ, RECURRENCE_CACHE_DIR=cache),
        check=True)
    return float(done.stdout.split()[-1])


def overhead():
    """Compile time of a small scan's kernels in a new process (cold, then
    loaded from the compile cache on disk) and the per-call cost of a
    small scan from Python."""
    try:
        with tempfile.TemporaryDirectory() as cache:
            cold, cached = first_call_ms(cache), first_call_ms(cache)
        print(f"COMPILE first call of a new process: cold {cold:.0f} ms, "
              f"from the disk cache {cached:.0f} ms (small diagonal scan)",
              flush=True)
    except (subprocess.CalledProcessError, ValueError, IndexError) as error:
        detail = getattr(error, "stderr", "") or str(error)
        print(f"COMPILE first call of a new process failed: "
              f"{detail.strip()[-300:]}", flush=True)
    a = torch.full((1, 16, 64), 0.5, device="cuda")
    b = torch.ones(1, 16, 64, device="cuda")
    calls = 2000
    rt.scan(a, b)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        rt.scan(a, b)
    torch.cuda.synchronize()
    per_call = (time.perf_counter() - start) / calls
    print(f"OVERHEAD per call from Python {per_call * 1e6:.1f} us "
          f"(small diagonal scan, on torch's stream)", flush=True)
    # Where those microseconds go: the functions that took the most time
    # of their own over 500 calls.
    import cProfile
    import io
    import pstats
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(500):
        rt.scan(a, b)
    torch.cuda.synchronize()
    profile.disable()
    text = io.StringIO()
    pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(12)
    for line in text.getvalue().splitlines():
        if line.strip():
            print(f"PROFILE {line}", flush=True)


def correctness_sections(args, only, shapes, dtypes, structures):
    """The correctness checks of the sections in `only` (this process's
    share of them, see mine); returns the failure count."""
    failures = 0
    if "forward" in only:
        failures += correctness(shapes, dtypes, structures)
    if "blelloch" in only:
        failures += blelloch(shapes, dtypes, structures)
    if "backward" in only:
        failures += backward(shapes, dtypes, structures)
    checks = []
    if "backward" in only or "double_backward" in only:
        checks.append(double_backward)
    if "long" in only and not args.quick:
        checks += [long_sequence, long_backward]
    if "user_ir" in only:
        checks += [user_ir, packed_sequences, packed_torch, decode_torch,
                   model_ops_user_ir]
    if "models" in only:
        failures += models_torch_cuda()
    if "layouts" in only:
        checks.append(time_contiguous)
    return failures + sum(sharded(check) for check in checks)


def in_workers(args):
    """The correctness checks in args.jobs processes of this script, each
    with its --shard and a fair part of the CPU; prints their lines as
    they come and returns the failures they count (a worker that ends
    without its count is one more)."""
    jobs = args.jobs
    argv = [sys.executable, os.path.abspath(__file__), "--only", args.only,
            "--structures", args.structures] + (
                ["--quick"] if args.quick else [])
    cpus = len(os.sched_getaffinity(0))
    env = dict(os.environ, OMP_NUM_THREADS=str(max(1, cpus // jobs)))
    workers = [subprocess.Popen(argv + ["--shard", f"{k}/{jobs}"], env=env,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True,
                                errors="replace")
               for k in range(jobs)]
    lock = threading.Lock()
    counted = [None] * jobs

    def relay(k):
        # Reads to the end whatever a line holds, so that no worker blocks
        # on a full pipe.
        for line in workers[k].stdout:
            total = re.match(r"CORRECTNESS \w+: (\d+) failure", line)
            if total:
                counted[k] = int(total.group(1))
            elif not line.startswith("== "):  # the device, printed once
                with lock:
                    print(line, end="", flush=True)

    relays = [threading.Thread(target=relay, args=(k,)) for k in range(jobs)]
    for thread in relays:
        thread.start()
    for thread in relays:
        thread.join()
    failures = 0
    for k, worker in enumerate(workers):
        code = worker.wait()
        if counted[k] is None:
            print(f"FAIL worker {k}/{jobs}: exited with {code} before its "
                  f"count", flush=True)
            failures += 1
            continue
        failures += counted[k]
        if code != (1 if counted[k] else 0):
            # Counted, then crashed (at teardown, say).
            print(f"FAIL worker {k}/{jobs}: exited with {code} after "
                  f"counting {counted[k]} failure(s)", flush=True)
            failures += 1
    return failures


SECTIONS = ["forward", "blelloch", "backward", "double_backward", "long",
            "user_ir", "models", "layouts", "overhead", "bench",
            "bench_layouts", "bench_backward", "bench_models", "frameworks"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true",
                        help="a reduced correctness run (for the sanitizer)")
    parser.add_argument("--baselines",
                        help="a folder holding accelerated_scan's source")
    parser.add_argument("--only", default=",".join(SECTIONS),
                        help="comma-separated sections to run, of "
                             + ", ".join(SECTIONS))
    parser.add_argument("--jobs", type=int, default=1,
                        help="worker processes that share the correctness "
                             "checks (the GPU is idle while a check "
                             "compiles); the benchmarks run after them, "
                             "alone")
    parser.add_argument("--shard", help=argparse.SUPPRESS)
    parser.add_argument("--structures", default=",".join(STRUCTURES),
                        help="comma-separated structures the correctness "
                             "checks cover (the seeds stay those of the "
                             "whole run)")
    args = parser.parse_args()
    only = args.only.split(",")
    structures = args.structures.split(",")
    if set(structures) - set(STRUCTURES):
        parser.error(f"unknown structures: "
                     f"{', '.join(sorted(set(structures) - set(STRUCTURES)))}")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    unknown = set(only) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown sections: {', '.join(sorted(unknown))}")
    print(f"== {torch.cuda.get_device_name()}, torch {torch.__version__}",
          flush=True)
    # No batch dims and odd N in the last.
    shapes = [((2,), 1, 6, 3), ((3,), 257, 12, 2), ((1,), 1500, 6, 2),
              ((), 33, 9, 3)]
    dtypes = [torch.float32, torch.bfloat16]
    if args.quick:
        shapes, dtypes = shapes[:2], [torch.float32]
    if args.shard:
        index, count = (int(k) for k in args.shard.split("/"))
        if not 0 <= index < count:
            parser.error("--shard takes K/N with 0 <= K < N")
        _SHARD[:] = [index, count]
    if args.jobs > 1 and not args.shard:
        failures = in_workers(args)
    else:
        failures = correctness_sections(args, only, shapes, dtypes,
                                        structures)
    print(f"CORRECTNESS {'PASS' if not failures else 'FAIL'}: "
          f"{failures} failure(s)", flush=True)
    if not args.quick and not args.shard:
        if "overhead" in only:
            overhead()
        if "bench" in only:
            bench(args.baselines)
            bench_blelloch()
        elif "bench_layouts" in only:
            bench_layouts(args.baselines)
        if "bench_backward" in only:
            bench_backward(args.baselines)
        if "bench_models" in only:
            bench_models()
        if "frameworks" in only:
            bench_frameworks()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

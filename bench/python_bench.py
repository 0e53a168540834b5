"""Throughput of recurrence.scan through Python, as a new user calls it:
NumPy arrays in, the result written into a reused buffer (out=), dynamic
shapes (the package compiles once per variant). Prints one BENCH-PY line per
case with its bandwidth and its ratios to two ceilings measured in the same
run: NumPy's copy of the same bytes, and the hand-written OpenMP loop of the
C++ benchmark (bench/HandWritten.cpp, loaded from
librecurrence-handwritten.so with ctypes). The scan and the loop are timed
in turns, so that both see the same state of the machine.

  python3 bench/python_bench.py [--quick] [--python-dir DIR] [--lib-dir DIR]
"""

import argparse
import ctypes
import os
import sys
import time

import numpy as np


def best_seconds(reps, f):
    best = float("inf")
    for _ in range(reps):
        start = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - start)
    return best


def cases(scale):
    """(name, structure, param, a shape, b shape) as in the C++ benchmark."""
    yield ("diagonal", "diagonal", 0, (8, 16384 // scale, 1536),
           (8, 16384 // scale, 1536))
    yield ("diagonal", "diagonal", 0, (1, 262144 // scale, 256),
           (1, 262144 // scale, 256))
    for m in (2, 4, 8, 16):
        T = 4096 // scale
        yield (f"block_diagonal<{m}>", "block_diagonal", m,
               (8, T, 512 // m, m, m), (8, T, 512))
    T = 4096 // scale
    yield ("dense", "dense", 0, (8, T, 64, 64), (8, T, 64))


def handwritten_loops(lib_dir):
    """The hand-written loops, by structure: f(a, b, h, param) runs h = the
    scan of (a, b), as the C++ benchmark's ceiling does."""
    lib = ctypes.CDLL(os.path.join(lib_dir, "librecurrence-handwritten.so"))
    p, i64 = ctypes.c_void_p, ctypes.c_int64
    for name, extra in (("diagonal", []), ("block_diagonal", [i64]),
                        ("dense", [])):
        getattr(lib, "recurrence_bench_" + name).argtypes = (
            [p, p, p, i64, i64, i64] + extra)

    def call(name, a, b, h, param):
        B, T, N = b.shape
        args = [a.ctypes.data, b.ctypes.data, h.ctypes.data, B, T, N]
        getattr(lib, "recurrence_bench_" + name)(
            *(args + ([param] if name == "block_diagonal" else [])))
    return call


def best_in_turns(reps, f, g):
    """The best time of f and of g, timed in turns."""
    best_f = best_g = float("inf")
    for _ in range(reps):
        best_f = min(best_f, best_seconds(1, f))
        best_g = min(best_g, best_seconds(1, g))
    return best_f, best_g


def bench_parser(description, python_dir=None):
    """The options every CPU benchmark takes: --quick and --python-dir (the
    package's folder, put first on the path by parse_bench_args)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true",
                        help="8x shorter sequences, one repetition")
    parser.add_argument("--python-dir", default=python_dir)
    return parser


def parse_bench_args(parser):
    """parser's arguments, with --python-dir first on the path."""
    args = parser.parse_args()
    if args.python_dir:
        sys.path.insert(0, args.python_dir)
    return args


def main():
    parser = bench_parser(__doc__, python_dir="build/python")
    parser.add_argument("--lib-dir", default="build/lib")
    args = parse_bench_args(parser)
    import recurrence as rec
    # One OpenMP runtime in the process: the package's, which the compiled
    # scans load, loaded first so that the loops' library binds to it too.
    package_omp = os.path.join(os.path.dirname(rec.__file__), "libomp.so.5")
    if os.path.exists(package_omp):
        ctypes.CDLL(package_omp, mode=ctypes.RTLD_GLOBAL)
    hand = handwritten_loops(args.lib_dir)

    scale, reps = (8, 1) if args.quick else (1, 5)
    rng = np.random.default_rng(0)
    for name, structure, param, a_shape, b_shape in cases(scale):
        width = 0.95 / (param or (a_shape[-1] if structure == "dense" else 1))
        a = rng.uniform(-width, width, a_shape).astype(np.float32)
        b = rng.uniform(-1, 1, b_shape).astype(np.float32)
        out = np.empty_like(b)
        theirs = np.empty_like(b)
        nbytes = a.nbytes + b.nbytes + out.nbytes
        run = lambda: rec.scan(a, b, structure=structure, out=out)
        loop = lambda: hand(structure, a, b, theirs, param)
        run()  # compile and warm up
        loop()
        diff = np.max(np.abs(out - theirs)) / max(np.max(np.abs(theirs)), 1)
        if not diff < 1e-4:
            raise SystemExit(f"{name}: recurrence.scan and the hand-written "
                             f"loop differ by {diff:.2g}")
        seconds, loop_seconds = best_in_turns(reps, run, loop)
        # NumPy copying the same number of bytes (read + write) once.
        src = np.ones(nbytes // 8, np.float32)
        dst = np.empty_like(src)
        copy = best_seconds(reps, lambda: np.copyto(dst, src))
        B, T, N = b_shape
        print(f"BENCH-PY structure={name} B={B} T={T} N={N} "
              f"GBps={nbytes / seconds / 1e9:.2f} "
              f"vs_copy={copy / seconds:.2f} "
              f"vs_handwritten={loop_seconds / seconds:.2f} "
              f"ms={seconds * 1e3:.2f} handwritten_ms={loop_seconds * 1e3:.2f}",
              flush=True)

    packed_scan(rec, scale, reps)
    decode_step(rec, reps)
    model_decode_steps(rec, reps)
    small_scan(rec, reps)


def per_call(reps, f, calls=2000):
    f()
    return best_seconds(reps, lambda: [f() for _ in range(calls)]) / calls


def small_scan(rec, reps):
    """The per-call cost of rec.scan on a small diagonal scan (1, 16, 64)
    written into out=, against NumPy writing the same output (a copy of b
    into out, the least any call that produces it does)."""
    a = np.full((1, 16, 64), 0.5, np.float32)
    b = np.ones((1, 16, 64), np.float32)
    out = np.empty_like(b)
    ours = per_call(reps, lambda: rec.scan(a, b, out=out))
    ceiling = per_call(reps, lambda: np.copyto(out, b))
    print(f"BENCH-PY scan_call structure=diagonal B=1 T=16 N=64 "
          f"us_per_call={ours * 1e6:.1f} numpy_copy_us={ceiling * 1e6:.1f} "
          f"vs_copy={ceiling / ours:.2f}", flush=True)


def packed_scan(rec, scale, reps):
    """A diagonal scan over packed sequences (offsets: 64 sequences of
    equal length) against the same scan of the same steps as one sequence,
    its ceiling: the restarts cost a gate per step. Timed in turns."""
    T, N = 65536 // scale, 64
    rng = np.random.default_rng(1)
    a = rng.uniform(0, 0.95, (1, T, N)).astype(np.float32)
    b = rng.uniform(-1, 1, (1, T, N)).astype(np.float32)
    offsets = np.arange(0, T + 1, T // 64, dtype=np.int64)
    out, whole = np.empty_like(b), np.empty_like(b)
    packed = lambda: rec.scan(a, b, offsets=offsets, out=out)
    plain = lambda: rec.scan(a, b, out=whole)
    packed()
    plain()
    seconds, whole_seconds = best_in_turns(reps, packed, plain)
    nbytes = a.nbytes + b.nbytes + out.nbytes
    print(f"BENCH-PY packed structure=diagonal B=1 T={T} N={N} sequences=64 "
          f"GBps={nbytes / seconds / 1e9:.2f} "
          f"vs_one_sequence={whole_seconds / seconds:.2f} "
          f"ms={seconds * 1e3:.2f} one_sequence_ms={whole_seconds * 1e3:.2f}",
          flush=True)


def decode_step(rec, reps):
    """The per-call cost of one decoding step, diagonal, B = 1, N = 4096,
    the state advancing in place, against the same step written in NumPy
    (a multiply and an add in place)."""
    n, calls = 4096, 2000
    rng = np.random.default_rng(1)
    a = rng.uniform(-0.9, 0.9, (1, n))
    b = rng.uniform(-1, 1, (1, n))
    state = np.zeros((1, n))
    run = lambda: rec.step(a, b, state, state_out=state)

    def numpy_step():
        np.multiply(a, state, out=state)
        np.add(state, b, out=state)

    ours = per_call(reps, run, calls)
    ceiling = per_call(reps, numpy_step, calls)
    print(f"BENCH-PY step structure=diagonal B=1 N={n} "
          f"us_per_call={ours * 1e6:.1f} numpy_us={ceiling * 1e6:.1f} "
          f"vs_numpy={ceiling / ours:.2f}", flush=True)


def model_decode_steps(rec, reps):
    """The per-call cost of one decoding step of linear attention (elu1,
    normalized) and of the delta rule on one head, B = 1, dk = dv = 64,
    float32, the state advancing in place, against the same step written
    in NumPy."""
    d, calls = 64, 1000
    rng = np.random.default_rng(2)
    q, k, v = (rng.standard_normal((1, d)).astype(np.float32)
               for _ in range(3))
    beta = np.full((1,), 0.5, np.float32)
    S, c = np.zeros((1, d, d), np.float32), np.zeros((1, d), np.float32)
    y = np.empty((1, d), np.float32)
    phi = lambda x: np.where(x > 0, x + 1, np.exp(np.minimum(x, 0)))

    def numpy_attention():
        fk, fq = phi(k), phi(q)
        S[...] += fk[..., :, None] * v[..., None, :]
        c[...] += fk
        np.divide(np.einsum("bn,bnd->bd", fq, S),
                  np.maximum(np.einsum("bn,bn->b", fq, c), 1e-8)[:, None],
                  out=y)

    def numpy_delta():
        pred = np.einsum("bn,bnd->bd", k, S)
        S[...] += (beta[:, None] * k)[..., :, None] * (v - pred)[..., None, :]
        np.einsum("bnd,bn->bd", S, q, out=y)

    steps = {
        "linear_attention": (lambda: rec.linear_attention_step(
            q, k, v, (S, c), out=y, state_out=(S, c)), numpy_attention),
        "delta_rule": (lambda: rec.delta_rule_step(
            q, k, v, beta, S, out=y, state_out=S), numpy_delta),
    }
    for name, (ours, theirs) in steps.items():
        mine = per_call(reps, ours, calls)
        ceiling = per_call(reps, theirs, calls)
        print(f"BENCH-PY model_step model={name} B=1 dk=dv={d} "
              f"us_per_call={mine * 1e6:.1f} numpy_us={ceiling * 1e6:.1f} "
              f"vs_numpy={ceiling / mine:.2f}", flush=True)


if __name__ == "__main__":
    main()

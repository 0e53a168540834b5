"""A diagonal scan over packed sequences (`offsets`: 64 sequences of 1024
steps, (1, 65536, 64) float32) through recurrence.torch on CPU tensors,
forward and forward + backward, against the same steps as one sequence
timed in turns in the same run: its ceiling, since a restart costs a gate
per step and the packed adjoint a few selects and identity scans more.
One BENCH-PACKED line per pass.

  python3 bench/packed_backward.py [--quick] [--python-dir build/python]
"""

from python_bench import bench_parser, best_in_turns, parse_bench_args


def main():
    args = parse_bench_args(bench_parser(__doc__))
    import torch
    import recurrence.torch as rt

    torch.manual_seed(0)
    scale, reps = (8, 1) if args.quick else (1, 7)
    T, N = 65536 // scale, 64
    a = (torch.rand(1, T, N) * 0.9).requires_grad_()
    b = torch.randn(1, T, N).requires_grad_()
    length = T // 64
    offsets = torch.arange(0, T + 1, length, dtype=torch.int64)

    def forward(packed):
        with torch.no_grad():
            return rt.scan(a, b, offsets=offsets) if packed else rt.scan(a, b)

    def both(packed):
        a.grad = b.grad = None
        out = rt.scan(a, b, offsets=offsets) if packed else rt.scan(a, b)
        out.sum().backward()

    for name, f in (("forward", forward), ("forward+backward", both)):
        f(True)  # compile and warm up
        f(False)
        ours, ceiling = best_in_turns(reps, lambda: f(True), lambda: f(False))
        print(f"BENCH-PACKED {name} structure=diagonal B=1 T={T} N={N} "
              f"sequences={T // length} ms={ours * 1e3:.2f} "
              f"one_sequence_ms={ceiling * 1e3:.2f} "
              f"vs_one_sequence={ceiling / ours:.2f}", flush=True)


if __name__ == "__main__":
    main()

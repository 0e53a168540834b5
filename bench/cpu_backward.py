"""The scan's gradient on the CPU, as the compiler derives it: recomputing
the states from the operands, and reading them from the forward's output
(the gradient of results, what recurrence.torch's backward calls), both
compiled for the call's static sizes as the front door compiles a
variant's first shape; and the latter compiled for any sizes. One
BENCH-BACKWARD line per structure and shape with the three times, the
bandwidth of the static one that reads the states, its ratio to NumPy's
copy of the same bytes measured in the same run, and the largest
difference between the gradients. Then, for each diagonal shape, one
BENCH-REVERSE line: the scan forward and reversed through
recurrence.scan (out=, compiled for any sizes), the ratio of the two, and
the reversed one's ratio to NumPy's copy."""

import numpy as np

from python_bench import best_seconds, bench_parser, parse_bench_args


def copy_seconds(moved, reps):
    """NumPy's copy of `moved` bytes in all (half read, half written)."""
    source = np.ones(moved // 8, np.float32)
    target = np.empty_like(source)
    return best_seconds(reps, lambda: np.copyto(target, source))


def cases(scale):
    """(name, structure, param, a shape, b shape)."""
    yield ("diagonal", "diagonal", 0, (8, 16384 // scale, 1536),
           (8, 16384 // scale, 1536))
    yield ("diagonal", "diagonal", 0, (1, 262144 // scale, 256),
           (1, 262144 // scale, 256))
    T = 4096 // scale
    yield ("block_diagonal<4>", "block_diagonal", 4, (8, T, 128, 4, 4),
           (8, T, 512))


def main():
    args = parse_bench_args(bench_parser(__doc__))
    import recurrence as rec
    from recurrence import api

    scale, reps = (8, 1) if args.quick else (1, 3)
    rng = np.random.default_rng(0)
    for name, structure, param, a_shape, b_shape in cases(scale):
        a = rng.uniform(0.5, 1.0, a_shape).astype(np.float32)
        if structure == "block_diagonal":
            a /= param  # rows summing below one: a contractive block
        b = rng.standard_normal(b_shape).astype(np.float32)
        g = rng.standard_normal(b_shape).astype(np.float32)
        h = rec.scan(a, b, structure=structure)
        spec, sizes, _, _, _ = api._prepare(a, b, structure, None, False,
                                            "auto", None, None, False, None)
        operands = [a, b]

        def recompute():
            return api._gradients(spec, operands, g, None, None, sizes=sizes)

        def given():
            return api._gradients(spec, operands, g, None, None, sizes=sizes,
                                  results=[h])

        def given_dynamic():
            return api._gradients(spec, operands, g, None, None, results=[h])

        # Compiled before timing.
        want = recompute()
        differs = max(float(np.max(np.abs(x - y)))
                      for other in (given(), given_dynamic())
                      for x, y in zip(want, other))
        recomputing = best_seconds(reps, recompute)
        reading = best_seconds(reps, given)
        dynamic = best_seconds(reps, given_dynamic)
        # Read: a, h, g; written: the gradients of a and b.
        moved = 2 * a.nbytes + 3 * b.nbytes
        copy = copy_seconds(moved, reps)
        print(f"BENCH-BACKWARD {name} a={a_shape} recompute_ms="
              f"{recomputing * 1e3:.1f} read_states_ms={reading * 1e3:.1f} "
              f"read_states_any_sizes_ms={dynamic * 1e3:.1f} "
              f"speedup={recomputing / reading:.2f} GB/s="
              f"{moved / reading / 1e9:.1f} vs_numpy_copy="
              f"{copy / reading:.2f} max_difference={differs:.1e}",
              flush=True)
        if structure == "diagonal":
            reverse_scan(rec, a, b, reps)


def reverse_scan(rec, a, b, reps):
    """The BENCH-REVERSE line of one shape: a reversed scan's steps run
    down through memory, the forward one's up."""
    out = np.empty_like(b)
    times = {}
    for reverse in (False, True):
        run = lambda: rec.scan(a, b, reverse=reverse, out=out)
        run()
        times[reverse] = best_seconds(reps, run)
    copy = copy_seconds(a.nbytes + 2 * b.nbytes, reps)
    print(f"BENCH-REVERSE diagonal a={a.shape} forward_ms="
          f"{times[False] * 1e3:.1f} reverse_ms={times[True] * 1e3:.1f} "
          f"reverse_vs_forward={times[False] / times[True]:.2f} "
          f"vs_numpy_copy={copy / times[True]:.2f}", flush=True)


if __name__ == "__main__":
    main()

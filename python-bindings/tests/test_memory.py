"""Compiled functions free what they allocate: repeated calls keep the
resident memory flat. (Each schedule allocates per-tile or per-chunk
scratch inside its parallel loops; a missing free there leaks it on every
call.)"""

import resource

import numpy as np
import pytest
import recurrence as rec


def resident_mib():
    """The peak resident set so far, in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@pytest.mark.parametrize("schedule,chunk", [("sequential", None),
                                            ("chunked", 8), ("scan", None)])
def test_repeated_calls_do_not_grow_memory(schedule, chunk):
    # A float64 state of 2^15 channels: 256 KiB of scratch per call, so 400
    # leaking calls would add 100 MiB.
    n = 1 << 15
    rng = np.random.default_rng(3)
    a = rng.uniform(0, 0.9, (1, 16, n))
    b = rng.uniform(-1, 1, (1, 16, n))
    h0 = rng.uniform(-1, 1, (1, n))
    out = np.empty_like(b)
    last = np.empty_like(h0)

    def call():
        rec.scan(a, b, init=h0, return_final_state=True, schedule=schedule,
                 chunk_size=chunk, out=out, final_state_out=last)

    for _ in range(50):
        call()
    before = resident_mib()
    for _ in range(400):
        call()
    growth = resident_mib() - before
    assert growth < 20, f"{growth:.0f} MiB more after 400 calls"
    # And the results are still the recurrence's.
    h = h0[0].copy()
    for t in range(16):
        h = a[0, t] * h + b[0, t]
    np.testing.assert_allclose(last[0], h, rtol=1e-12)

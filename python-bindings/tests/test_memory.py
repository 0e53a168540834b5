"""Compiled functions free what they allocate: repeated calls keep the
resident memory flat. (Each schedule allocates per-tile or per-chunk
scratch inside its parallel loops; a missing free there leaks it on every
call.) Their large temporaries, and the large arrays that NumPy callers get
back, go through the host cache, which hands the blocks of one call to the
next."""

import gc
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


def blelloch_calls(count):
    """The scan schedule's tree buffers: 8 MiB at (2, 4096, 64) float64.
    Returns each call's result and the cache's state after it."""
    rng = np.random.default_rng(4)
    a = rng.uniform(0, 0.9, (2, 4096, 64))
    b = rng.uniform(-1, 1, (2, 4096, 64))
    calls = [(rec.scan(a, b, schedule="scan"), rec.host_cache())
             for _ in range(count)]
    h, want = np.zeros((2, 64)), np.empty_like(b)
    for t in range(4096):
        h = a[:, t] * h + b[:, t]
        want[:, t] = h
    return calls, want


def live_before():
    """The cache's bytes in use before a test (results that other tests
    still hold), with their cached blocks released."""
    gc.collect()
    rec.release_host_cache()
    assert rec.host_cache()["cached_bytes"] == 0
    return rec.host_cache()["live_bytes"]


def test_host_cache_reuses_a_calls_temporaries():
    base = live_before()
    calls, want = blelloch_calls(3)
    for index, (h, stats) in enumerate(calls):
        np.testing.assert_allclose(h, want, rtol=1e-10, atol=1e-12)
        # Nothing but the results (4 MiB each, from the cache too) stays in
        # use after a call, and its temporaries' blocks are kept.
        assert stats["live_bytes"] == base + (index + 1) * h.nbytes
        assert stats["cached_bytes"] >= 1 << 20
    # The second and third calls took the first one's blocks again.
    assert calls[1][1]["reuses"] > calls[0][1]["reuses"]
    assert calls[2][1]["reuses"] - calls[1][1]["reuses"] == \
        calls[1][1]["reuses"] - calls[0][1]["reuses"]
    assert calls[2][1]["cached_bytes"] == calls[0][1]["cached_bytes"]
    rec.release_host_cache()
    assert rec.host_cache()["cached_bytes"] == 0


def test_host_cache_limit_zero_keeps_nothing():
    base = live_before()
    rec.set_host_cache_limit(0)
    try:
        calls, want = blelloch_calls(2)
        for h, stats in calls:
            np.testing.assert_allclose(h, want, rtol=1e-10, atol=1e-12)
            assert stats["cached_bytes"] == 0
            assert stats["live_bytes"] == base
        assert calls[1][1]["reuses"] == calls[0][1]["reuses"]
    finally:
        rec.set_host_cache_limit(2048 << 20)


def diagonal_problem(scale=1.0):
    rng = np.random.default_rng(5)
    a = scale * rng.uniform(0, 0.9, (2, 4096, 64))
    b = rng.uniform(-1, 1, (2, 4096, 64))
    h, want = np.zeros((2, 64)), np.empty_like(b)
    for t in range(4096):
        h = a[:, t] * h + b[:, t]
        want[:, t] = h
    return a, b, want


def test_large_results_come_from_the_host_cache_and_return_to_it():
    # A 4 MiB result: from the cache, and back to it once no view of it is
    # left, so the next call's result reuses its pages.
    base = live_before()
    a, b, want = diagonal_problem()
    h = rec.scan(a, b, schedule="sequential")
    np.testing.assert_allclose(h, want, rtol=1e-12)
    assert h.flags.writeable and h.flags.c_contiguous
    assert rec.host_cache()["live_bytes"] == base + h.nbytes
    # A view keeps the block: the next result gets another one.
    view = h[1]
    kept = view.copy()
    del h
    assert rec.host_cache()["live_bytes"] == base + 2 * view.nbytes
    a2, b2, want2 = diagonal_problem(0.5)
    h2 = rec.scan(a2, b2, schedule="sequential")
    np.testing.assert_array_equal(view, kept)
    np.testing.assert_allclose(h2, want2, rtol=1e-12)
    assert rec.host_cache()["live_bytes"] == base + 2 * h2.nbytes
    # Freed, it is kept, and the next result takes it.
    h3_bytes = h2.nbytes
    del view, h2
    stats = rec.host_cache()
    assert stats["live_bytes"] == base
    assert stats["cached_bytes"] == 2 * h3_bytes
    h3 = rec.scan(a, b, schedule="sequential")
    after = rec.host_cache()
    assert after["reuses"] == stats["reuses"] + 1
    np.testing.assert_allclose(h3, want, rtol=1e-12)
    del h3
    rec.release_host_cache()


def test_small_results_are_numpys_own():
    base = live_before()
    a, b, want = diagonal_problem()
    h = rec.scan(a[:, :16], b[:, :16], schedule="sequential")
    np.testing.assert_allclose(h, want[:, :16], rtol=1e-12)
    assert rec.host_cache()["live_bytes"] == base

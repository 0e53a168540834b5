"""Compiled functions free what they allocate: repeated calls keep the
resident memory flat. (Each schedule allocates per-tile or per-chunk
scratch inside its parallel loops; a missing free there leaks it on every
call.) Their large temporaries go through the host cache, which hands the
blocks of one call to the next."""

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


def test_host_cache_reuses_a_calls_temporaries():
    rec.release_host_cache()
    assert rec.host_cache()["cached_bytes"] == 0
    calls, want = blelloch_calls(3)
    for h, stats in calls:
        np.testing.assert_allclose(h, want, rtol=1e-10, atol=1e-12)
        # Nothing stays in use after a call, and its blocks are kept.
        assert stats["live_bytes"] == 0
        assert stats["cached_bytes"] >= 1 << 20
    # The second and third calls took the first one's blocks again.
    assert calls[1][1]["reuses"] > calls[0][1]["reuses"]
    assert calls[2][1]["reuses"] - calls[1][1]["reuses"] == \
        calls[1][1]["reuses"] - calls[0][1]["reuses"]
    assert calls[2][1]["cached_bytes"] == calls[0][1]["cached_bytes"]
    rec.release_host_cache()
    assert rec.host_cache()["cached_bytes"] == 0


def test_host_cache_limit_zero_keeps_nothing():
    rec.set_host_cache_limit(0)
    try:
        calls, want = blelloch_calls(2)
        for h, stats in calls:
            np.testing.assert_allclose(h, want, rtol=1e-10, atol=1e-12)
            assert stats["cached_bytes"] == 0 and stats["live_bytes"] == 0
        assert calls[1][1]["reuses"] == calls[0][1]["reuses"]
    finally:
        rec.set_host_cache_limit(2048 << 20)

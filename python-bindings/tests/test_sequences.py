"""Packed variable-length sequences (``offsets``, flash-linear-attention's
cu_seqlens): every sequence restarts from its own init, against the float64
reference run on each sequence alone."""

import numpy as np
import pytest
import recurrence as rec

import reference
from test_scan import transition

# Empty sequences first, in the middle and last; boundaries inside chunks
# of 4; one sequence longer than a chunk.
LENGTHS = (0, 1, 6, 3, 0, 11, 2, 0)
OFFSETS = np.cumsum((0,) + LENGTHS)
T, S = int(OFFSETS[-1]), len(LENGTHS)


def steps(x, lo, hi, rank):
    """x's steps lo..hi-1 (x an array or a tuple of them, or None)."""
    if x is None:
        return None
    if isinstance(x, tuple):
        return tuple(steps(y, lo, hi, rank) for y in x)
    return x[(slice(None),) * rank + (slice(lo, hi),)]


@pytest.mark.parametrize("schedule,chunk", [("sequential", None),
                                            ("chunked", 4), ("scan", None)])
@pytest.mark.parametrize("structure", ["identity", "scalar", "diagonal",
                                       "block_diagonal", "dplr", "dense"])
@pytest.mark.parametrize("reverse", [False, True])
def test_each_sequence_restarts_from_its_init(structure, schedule, chunk,
                                              reverse):
    rng = np.random.default_rng(5)
    batch, N = (2,), 6
    a = transition(structure, rng, batch, T, N, np.float64)
    b = rng.uniform(-1, 1, batch + (T, N))
    init = rng.uniform(-1, 1, batch + (S, N))
    h, last = rec.scan(a, b, structure=structure, init=init,
                       reverse=reverse, schedule=schedule, chunk_size=chunk,
                       return_final_state=True, offsets=OFFSETS)
    assert h.shape == b.shape and last.shape == init.shape
    for s, (lo, hi) in enumerate(zip(OFFSETS[:-1], OFFSETS[1:])):
        if lo == hi:
            np.testing.assert_array_equal(last[:, s], init[:, s])
            continue
        want, want_last = reference.scan(structure, steps(a, lo, hi, 1),
                                         b[:, lo:hi], init=init[:, s],
                                         reverse=reverse)
        np.testing.assert_allclose(h[:, lo:hi], want, rtol=1e-12,
                                   atol=1e-12)
        np.testing.assert_allclose(last[:, s], want_last, rtol=1e-12,
                                   atol=1e-12)


@pytest.mark.parametrize("schedule,chunk", [("sequential", None),
                                            ("chunked", 4)])
def test_linear_attention_over_packed_sequences(schedule, chunk):
    """Identity on a matrix state with a factored input and a readout (the
    shape of linear attention), float32, with and without final states."""
    rng = np.random.default_rng(6)
    k = rng.uniform(-1, 1, (1, T, 4)).astype(np.float32)
    v = rng.uniform(-1, 1, (1, T, 3)).astype(np.float32)
    q = rng.uniform(-1, 1, (1, T, 4)).astype(np.float32)
    y = rec.scan(None, (k, v), structure="identity", readout=q,
                 schedule=schedule, chunk_size=chunk, offsets=OFFSETS)
    y2, last = rec.scan(None, (k, v), structure="identity", readout=q,
                        schedule=schedule, chunk_size=chunk,
                        offsets=OFFSETS.astype(np.int32),
                        return_final_state=True)
    assert last.shape == (1, S, 4, 3)
    tolerance = reference.tolerance(np.float32, max(LENGTHS))
    for s, (lo, hi) in enumerate(zip(OFFSETS[:-1], OFFSETS[1:])):
        if lo == hi:
            assert not last[:, s].any()
            continue
        b = k[:, lo:hi, :, None].astype(np.float64) * v[:, lo:hi, None, :]
        want, want_last = reference.scan("identity", None, b,
                                         readout=q[:, lo:hi], matrix=True)
        for got in (y, y2):
            assert reference.relative_error(got[:, lo:hi], want) <= tolerance
        assert reference.relative_error(last[:, s], want_last) <= tolerance


def test_bad_offsets():
    a = np.full((1, 5, 2), 0.5)
    with pytest.raises(ValueError, match=r"offsets: expected bounds from 0 "
                                         r"to T = 5, got 0 \.\. 4"):
        rec.scan(a, a, offsets=[0, 2, 4])
    with pytest.raises(ValueError, match="offsets: expected bounds from 0"):
        rec.scan(a, a, offsets=[1, 5])
    with pytest.raises(ValueError, match=r"non-decreasing bounds, got 3 "
                                         r"then 2 at 1"):
        rec.scan(a, a, offsets=[0, 3, 2, 5])
    with pytest.raises(ValueError, match="non-decreasing"):
        rec.scan(a, a, offsets=[0, -1, 5])
    with pytest.raises(ValueError, match=r"a 1-d array \[S \+ 1\]"):
        rec.scan(a, a, offsets=np.zeros((2, 2), np.int64))
    with pytest.raises(TypeError, match="offsets: expected integers"):
        rec.scan(a, a, offsets=[0.0, 5.0])
    with pytest.raises(ValueError, match=r"init: expected shape \(1, 2, 2\)"):
        rec.scan(a, a, init=np.zeros((1, 2)), offsets=[0, 2, 5])
    # A layout seen before still has its bounds checked.
    rec.scan(a, a, offsets=np.array([0, 2, 5]))
    with pytest.raises(ValueError, match="non-decreasing"):
        rec.scan(a, a, offsets=np.array([0, 6, 5]))


#===------------------------------------------------------------------------===#
# Model ops over packed sequences: each sequence equals the op on it alone
#===------------------------------------------------------------------------===#

def bounds():
    return list(zip(OFFSETS[:-1], OFFSETS[1:]))


@pytest.mark.parametrize("schedule,chunk", [("sequential", None),
                                            ("chunked", 4)])
def test_models_over_packed_sequences(schedule, chunk):
    m = rec.models
    rng = np.random.default_rng(8)
    u = lambda *shape: rng.uniform(-1, 1, shape)
    opts = dict(schedule=schedule, chunk_size=chunk)
    q, k, v = u(2, T, 4), u(2, T, 4) / 2, u(2, T, 3)
    beta, gate = rng.uniform(0, 1, (2, T)), rng.uniform(0.8, 1, (2, T))
    h0 = u(2, S, 4, 3)
    y = m.linear_attention(q, k, v, offsets=OFFSETS, **opts)
    yd, last = m.delta_rule(q, k, v, beta, gate=gate, init=h0,
                            return_final_state=True, offsets=OFFSETS, **opts)
    x, dt = u(2, T, 3), rng.uniform(0.1, 0.5, (2, T, 3))
    A, B, C, D = -rng.uniform(0.5, 1, (3, 4)), u(2, T, 4), u(2, T, 4), u(3)
    s0 = u(2, S, 4, 3)
    ys, lasts = m.selective_ssm(x, dt, A, B, C, D, init=s0,
                                return_final_state=True, offsets=OFFSETS,
                                **opts)
    assert last.shape == (2, S, 4, 3) and lasts.shape == (2, S, 4, 3)
    for s, (lo, hi) in enumerate(bounds()):
        if lo == hi:
            np.testing.assert_array_equal(last[:, s], h0[:, s])
            np.testing.assert_array_equal(lasts[:, s], s0[:, s])
            continue
        part = slice(lo, hi)
        close = lambda got, want: np.testing.assert_allclose(
            got, want, rtol=1e-11, atol=1e-12)
        close(y[:, part], m.linear_attention(q[:, part], k[:, part],
                                             v[:, part]))
        want, want_last = m.delta_rule(
            q[:, part], k[:, part], v[:, part], beta[:, part],
            gate=gate[:, part], init=h0[:, s], return_final_state=True)
        close(yd[:, part], want)
        close(last[:, s], want_last)
        want, want_last = m.selective_ssm(
            x[:, part], dt[:, part], A, B[:, part], C[:, part], D,
            init=s0[:, s], return_final_state=True)
        close(ys[:, part], want)
        close(lasts[:, s], want_last)


@pytest.mark.parametrize("schedule,chunk", [("sequential", None),
                                            ("chunked", 4), ("scan", None)])
def test_bdlru_and_stateful_linear_attention_over_packed_sequences(schedule,
                                                                   chunk):
    m = rec.models
    rng = np.random.default_rng(9)
    u = lambda *shape: rng.uniform(-1, 1, shape)
    opts = dict(schedule=schedule, chunk_size=chunk)
    gates = m.normalize_gates(u(2, T, 3, 2, 3))
    v, h0 = u(2, T, 6), u(2, S, 6)
    h, last = m.bdlru(gates, v, init=h0, return_final_state=True,
                      offsets=OFFSETS, **opts)
    q, k, lv = u(2, T, 4), u(2, T, 4), u(2, T, 3)
    S0, c0 = u(2, S, 4, 3), rng.uniform(0.5, 1, (2, S, 4))
    y, (S_T, c_T) = m.linear_attention(q, k, lv, init=(S0, c0),
                                       return_final_state=True,
                                       offsets=OFFSETS, **opts)
    close = lambda got, want: np.testing.assert_allclose(
        got, want, rtol=1e-11, atol=1e-12)
    for s, (lo, hi) in enumerate(bounds()):
        if lo == hi:  # an empty sequence's final states are its inits
            np.testing.assert_array_equal(last[:, s], h0[:, s])
            np.testing.assert_array_equal(S_T[:, s], S0[:, s])
            np.testing.assert_array_equal(c_T[:, s], c0[:, s])
            continue
        part = slice(lo, hi)
        want, want_last = m.bdlru(gates[:, part], v[:, part], init=h0[:, s],
                                  return_final_state=True)
        close(h[:, part], want)
        close(last[:, s], want_last)
        want, (wS, wc) = m.linear_attention(
            q[:, part], k[:, part], lv[:, part], init=(S0[:, s], c0[:, s]),
            return_final_state=True)
        close(y[:, part], want)
        close(S_T[:, s], wS)
        close(c_T[:, s], wc)


def test_models_check_offsets():
    m = rec.models
    q = np.zeros((1, 5, 2))
    with pytest.raises(ValueError, match="offsets: expected bounds from 0 "
                                         "to T = 5"):
        m.linear_attention(q, q, q, offsets=[0, 4])
    with pytest.raises(ValueError, match=r"init: expected shape "
                                         r"\(1, 2, 2, 2\)"):
        m.delta_rule(q, q, q, np.zeros((1, 5)), init=np.zeros((1, 2, 2)),
                     offsets=[0, 2, 5])
    with pytest.raises(ValueError, match=r"init: expected shape \(1, 2, 2\)"):
        m.bdlru(np.full((1, 5, 1, 2, 3), 0.3), q, init=np.zeros((1, 2)),
                offsets=[0, 2, 5])
    # higher_order's state reaches m steps back, across a sequence start.
    with pytest.raises(ValueError, match="model 'hlru' takes no offsets"):
        m._model("hlru", np.float64, param=2, offsets=True)

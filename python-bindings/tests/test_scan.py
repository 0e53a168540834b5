"""rec.scan on every structure and schedule against the float64 reference."""

import zlib

import numpy as np
import pytest
import recurrence as rec

import reference

STRUCTURES = ["identity", "scalar", "diagonal", "block_diagonal", "dplr",
              "dense", "higher_order"]
SCHEDULES = [("sequential", None), ("chunked", 4), ("scan", None),
             ("auto", None)]


def transition(structure, rng, batch, T, N, dtype):
    """Contractive random transitions for `structure`."""
    u = lambda shape, r: rng.uniform(-r, r, shape).astype(dtype)
    if structure == "identity":
        return None
    if structure == "scalar":
        return u(batch + (T,), 0.95)
    if structure == "diagonal":
        return u(batch + (T, N), 0.95)
    if structure == "block_diagonal":
        return u(batch + (T, N // 3, 3, 3), 0.95 / 3)
    if structure == "dplr":
        s = np.sqrt(0.45 / (N * 2))
        return (u(batch + (T, N), 0.5), u(batch + (T, N, 2), s),
                u(batch + (T, N, 2), s))
    if structure == "dense":
        return u(batch + (T, N, N), 0.95 / N)
    return u(batch + (T, 2, N), 0.95 / 2)


def long_memory_transition(structure, rng, batch, T, N, dtype):
    """Transitions at the edge of stability (the long-memory family of the
    C++ tests): a state remembers the whole sequence, so every scan level
    and chunk carry matters. Radii are in [0.97, 1] with runs of exact 1s;
    blocks and dense matrices are orthogonal times the radius; dplr is a
    slow decayed delta rule; higher_order has nonnegative coefficients
    summing to the radius."""
    def radius(shape):
        r = rng.uniform(0.97, 1.0, shape)
        runs = rng.uniform(size=shape) < 1.0 / 16  # steps of exact 1
        r[runs] = 1.0
        return r

    def orthogonal(shape, m):
        q, _ = np.linalg.qr(rng.standard_normal(shape + (m, m)))
        return q

    if structure == "identity":
        return None
    if structure == "scalar":
        a = radius(batch + (T,))
    elif structure == "diagonal":
        a = radius(batch + (T, N))
        a[rng.uniform(size=a.shape) < 0.125] *= -1.0
    elif structure == "block_diagonal":
        a = (orthogonal(batch + (T, N // 3), 3)
             * radius(batch + (T, 1, 1, 1)))
    elif structure == "dense":
        a = orthogonal(batch + (T,), N) * radius(batch + (T, 1, 1))
    elif structure == "dplr":
        rho = radius(batch + (T, 1))
        k = orthogonal(batch + (T,), N)[..., :2]  # orthonormal columns
        beta = rng.uniform(0.0, 0.02, batch + (T, 1, 2))
        a = (rho * rng.uniform(0.995, 1.0, batch + (T, N)),
             -rho[..., None] * beta * k, k)
        return tuple(x.astype(dtype) for x in a)
    else:  # higher_order, m = 2
        w = rng.uniform(0.05, 1.0, batch + (T, 2, N))
        a = w / w.sum(axis=-2, keepdims=True) * radius(batch + (T, 1, N))
    return a.astype(dtype)


def seed(*key):
    """A seed that is the same in every process (str hashes are salted)."""
    return zlib.crc32(repr(key).encode())


def memory(structure, family="contractive"):
    """How many steps a state remembers (see reference.tolerance)."""
    if structure == "identity":
        return np.inf
    if family == "long":
        return reference.LONG_MEMORY
    return reference.CONTRACTIVE_MEMORY


def check(got, want, dtype, steps, mem):
    error = reference.relative_error(got, want)
    assert error <= reference.tolerance(dtype, steps, mem), (
        f"relative error {error:.3g} over tolerance "
        f"{reference.tolerance(dtype, steps, mem):.3g}")


def cases():
    """Every variant and dtype sequentially; the other schedules (covered in
    depth by the C++ execution tests) with two variants in float64."""
    for structure in STRUCTURES:
        for schedule, chunk in SCHEDULES:
            for dtype in (np.float32, np.float64):
                for variant in ("plain", "reverse_init", "readout", "matrix"):
                    if schedule != "sequential" and (
                            dtype == np.float32 or
                            variant in ("plain", "matrix")):
                        continue
                    yield pytest.param(
                        structure, schedule, chunk, dtype, variant,
                        id=f"{structure}-{schedule}-{np.dtype(dtype)}-"
                        f"{variant}")


@pytest.mark.parametrize("structure,schedule,chunk,dtype,variant", list(cases()))
def test_scan_matches_reference(structure, schedule, chunk, dtype, variant):
    rng = np.random.default_rng(seed(structure, schedule, variant))
    for batch, T, N in [((2, 3), 1, 6), ((), 9, 9), ((2,), 7, 3)]:
        a = transition(structure, rng, batch, T, N, dtype)
        matrix = variant == "matrix"
        b = rng.standard_normal(batch + (T, N) + ((2,) if matrix else ())
                                ).astype(dtype)
        order = 2 if structure == "higher_order" else None
        init = None
        if variant == "reverse_init":
            init = rng.standard_normal(
                batch + ((order,) if order else ()) + (N,)).astype(dtype)
        readout = (rng.standard_normal(batch + (T, N)).astype(dtype)
                   if variant == "readout" else None)
        reverse = variant == "reverse_init"
        h, last = rec.scan(a, b, structure=structure, init=init,
                           reverse=reverse, schedule=schedule,
                           chunk_size=chunk, readout=readout,
                           return_final_state=True, matrix=matrix or None)
        ref_a = (tuple(x.astype(np.float64) for x in a)
                 if isinstance(a, tuple) else a)
        want, want_last = reference.scan(structure, ref_a, b, init, reverse,
                                         readout, matrix)
        assert h.dtype == dtype
        check(h, want, dtype, T, memory(structure))
        check(last, want_last, dtype, T, memory(structure))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("schedule,chunk", [("sequential", None),
                                            ("chunked", 100), ("scan", None)])
@pytest.mark.parametrize("structure", STRUCTURES)
def test_long_memory_matches_reference(structure, schedule, chunk, dtype):
    """T = 1031 (prime: not a power of two, not a multiple of the chunk)
    with transitions that forget nothing, forward and reverse."""
    rng = np.random.default_rng(seed("long", structure, schedule, str(dtype)))
    batch, T, N = (2,), 1031, 6
    for reverse in (False, True):
        a = long_memory_transition(structure, rng, batch, T, N, dtype)
        b = rng.uniform(-1, 1, batch + (T, N)).astype(dtype)
        lead = batch + ((2,) if structure == "higher_order" else ())
        init = rng.uniform(-1, 1, lead + (N,)).astype(dtype)
        h, last = rec.scan(a, b, structure=structure, init=init,
                           reverse=reverse, schedule=schedule,
                           chunk_size=chunk, return_final_state=True)
        want, want_last = reference.scan(structure, a, b, init, reverse)
        check(h, want, dtype, T, memory(structure, "long"))
        check(last, want_last, dtype, T, memory(structure, "long"))


def test_non_contiguous_inputs_and_empty_batch():
    rng = np.random.default_rng(1)
    wide = rng.uniform(-0.9, 0.9, (3, 8, 10))
    a = wide[:, :, ::2]  # strided view [3, 8, 5]
    b = rng.standard_normal((5, 8, 3)).transpose(2, 1, 0)  # [3, 8, 5]
    assert not a.flags.c_contiguous and not b.flags.c_contiguous
    want, _ = reference.scan("diagonal", a, b)
    np.testing.assert_allclose(rec.scan(a, b), want, rtol=1e-12)
    empty = np.zeros((0, 4, 5))
    assert rec.scan(empty, empty).shape == (0, 4, 5)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_strided_operands_and_results(dtype):
    """Strided arguments and out= results of every element size go through
    contiguous copies, row by row: the values land where the views say."""
    rng = np.random.default_rng(4)
    # a: every other channel of a wider array; b: a transposed array; the
    # final state written into every other column of a wider one, the
    # output into a transposed one.
    a = rng.uniform(0.2, 0.9, (2, 7, 12)).astype(dtype)[:, :, ::2]
    b = rng.standard_normal((6, 7, 2)).astype(dtype).transpose(2, 1, 0)
    h0 = rng.standard_normal((2, 6)).astype(np.float32 if dtype == np.float16
                                            else dtype)
    out = np.zeros((6, 7, 2), dtype).transpose(2, 1, 0)
    last = np.zeros((2, 12), h0.dtype)[:, 1::2]
    assert not (a.flags.c_contiguous or b.flags.c_contiguous or
                out.flags.c_contiguous or last.flags.c_contiguous)
    rec.scan(a, b, init=h0, return_final_state=True, out=out,
             final_state_out=last)
    want, want_last = reference.scan(
        "diagonal", a.astype(np.float64), b.astype(np.float64),
        init=h0.astype(np.float64))
    tolerance = {np.float16: 2e-3, np.float32: 1e-5, np.float64: 1e-12}[dtype]
    np.testing.assert_allclose(out.astype(np.float64), want, rtol=tolerance,
                               atol=tolerance)
    np.testing.assert_allclose(last, want_last, rtol=tolerance,
                               atol=tolerance)


def test_per_element_diagonal_matrix_state():
    rng = np.random.default_rng(2)
    a = rng.uniform(-0.9, 0.9, (2, 6, 4, 3))
    b = rng.standard_normal((2, 6, 4, 3))
    want, _ = reference.scan("diagonal", a, b, matrix=True)
    np.testing.assert_allclose(rec.scan(a, b, matrix=True), want, rtol=1e-12)


def test_second_call_of_another_size_reuses_the_compiled_function():
    from recurrence import api
    a = np.full((1, 3, 2), 0.5)
    rec.scan(a, np.ones_like(a), schedule="sequential")
    count = len(api._scan_cache)
    a = np.full((4, 11, 7), 0.5)
    h = rec.scan(a, np.ones_like(a), schedule="sequential")
    assert len(api._scan_cache) == count
    np.testing.assert_allclose(h[0, :3, 0], [1.0, 1.5, 1.75])


def test_explain_reports_the_choice():
    a = np.full((1, 100000, 2), 0.5, np.float32)
    info = rec.explain(a, a, target="cuda")
    assert info["chosen_by"] == "cost model"
    names = [name for name, _ in info["candidates"]]
    costs = [cost for _, cost in info["candidates"]]
    # The candidates are the schedules the target lowers, all three on
    # both; two channels of a long sequence take the GPU's chunked kernels
    # (thousands of threads, where a sequential thread per channel streams
    # far too little), the Blelloch scan behind the best chunk sizes.
    assert "sequential" in names and "scan" in names
    assert names[0].startswith("chunked<")
    assert names.index("scan") < names.index("sequential")
    assert "scan" in [name for name, _ in rec.explain(a, a)["candidates"]]
    # The GPU's default is the target model's own (an H200's 132 SMs), not
    # this machine's CPU cores.
    assert info == rec.explain(a, a, target="cuda", cores=132)
    assert info != rec.explain(a, a, target="cuda", cores=2)
    # Channels that mix stay sequential on the GPU, as -recurrence-select-
    # schedule decides: the only candidate explain lists for dplr there.
    d = np.full((1, 100000, 4), 0.5, np.float32)
    u = np.zeros((1, 100000, 4, 1), np.float32)
    mixing = dict(structure="dplr")
    assert [name for name, _ in rec.explain(
        (d, u, u), d, target="cuda", **mixing)["candidates"]] == ["sequential"]
    assert len(rec.explain((d, u, u), d, **mixing)["candidates"]) > 1
    # explain sees the scan as a call compiles it, on the caller's buffers:
    # one channel's steps are contiguous there, which a warp per sequence
    # reads in place, and blocks of 2 on 8 x 256 row lanes run as rows
    # (-recurrence-gpu-block-rows), both sequential; a few row lanes
    # still run chunked.
    one = np.full((1, 100000, 1), 0.5, np.float32)
    assert [name for name, _ in rec.explain(
        one, one, target="cuda")["candidates"]] == ["sequential"]
    blocks = dict(structure="block_diagonal")
    rows = np.zeros((8, 4096, 256, 2, 2), np.float32)
    x = np.zeros((8, 4096, 512), np.float32)
    assert [name for name, _ in rec.explain(
        rows, x, target="cuda", **blocks)["candidates"]] == ["sequential"]
    assert rec.explain(rows[:1, :, :4], x[:1, :, :8], target="cuda",
                       **blocks)["schedule"].startswith("chunked<")
    assert len(rec.explain(rows, x, **blocks)["candidates"]) > 1
    # A scan of one step, which canonicalization would fold away, is
    # estimated too.
    step = np.full((2, 1, 3), 0.5, np.float32)
    assert rec.explain(step, step, target="cuda")["candidates"]
    # Ranked cheapest first, and the choice is the cheapest.
    assert costs == sorted(costs) and all(c > 0 for c in costs)
    assert info["schedule"] == names[0]
    on_cpu = rec.explain(a, a)
    assert rec.explain(a, a, schedule="scan") == dict(
        info, schedule="scan", chosen_by="request",
        candidates=on_cpu["candidates"],
        time_contiguous_in_place=on_cpu["time_contiguous_in_place"])
    assert rec.explain(a, a, chunk_size=64)["schedule"] == "chunked<64>"

    # The estimates follow the problem: a sequential pass is linear in T,
    # and chunks get cheaper with more cores while the sequential loop on
    # one batch element does not.
    def cost(info, name):
        return dict(info["candidates"])[name]
    long = np.full((1, 500000, 2), 0.5, np.float32)
    one, many = (rec.explain(long, long, target="cpu", cores=c)
                 for c in (1, 64))
    ratio = cost(one, "sequential") / cost(rec.explain(
        a, a, target="cpu", cores=1), "sequential")
    assert 4.5 < ratio < 5.5
    assert cost(many, "chunked<4096>") < 0.6 * cost(one, "chunked<4096>")
    assert cost(many, "sequential") == pytest.approx(cost(one, "sequential"),
                                                     rel=0.01)


def test_explain_says_where_time_contiguous_layouts_are_read_in_place():
    """On the GPU, only the warp per sequence reads operands whose steps
    are contiguous along its lanes' lines: elementwise first-order scans
    on a plain input with an f32 state. The others' threads would read a
    line apart, so the front door copies for them."""
    rng = np.random.default_rng(5)
    a = rng.uniform(0.5, 1, (2, 9, 4)).astype(np.float32)
    b = rng.standard_normal((2, 9, 4)).astype(np.float32)

    def verdict(*args, target="cuda", **kwargs):
        found = rec.explain(*args, target=target, **kwargs)
        return tuple(found["time_contiguous_in_place"].values())

    assert verdict(a, b) == (True, "")
    assert verdict(a, b, reverse=True, init=b[:, 0]) == (True, "")
    assert verdict(a, b[..., None], matrix=True) == (True, "")
    assert verdict(a.astype(np.float64), b.astype(np.float64)) == (
        False, "the state is not f32")
    assert verdict(a, b, readout=b) == (False, "not a plain input")
    assert verdict(a, np.stack([b, b], -1), matrix=True) == (
        False, "a matrix state of more than one column")
    blocks = rng.uniform(0, 0.5, (2, 9, 2, 2, 2)).astype(np.float32)
    assert verdict(blocks, b, structure="block_diagonal") == (
        False, "not an elementwise first-order structure")
    u = np.zeros((2, 9, 4, 1), np.float32)
    assert verdict((a, u, u), b, structure="dplr") == (
        False, "not an elementwise first-order structure")
    in_place, reason = verdict(a, b, target="cpu")
    assert not in_place and "line apart" in reason


@pytest.mark.parametrize("structure", ["identity", "diagonal", "dplr"])
def test_factored_input_equals_its_outer_product(structure):
    rng = np.random.default_rng(31)
    batch, T, N, D = (2,), 5, 4, 3
    a = transition(structure, rng, batch, T, N, np.float64)
    k = rng.standard_normal(batch + (T, N))
    v = rng.standard_normal(batch + (T, D))
    init = rng.standard_normal(batch + (N, D))
    c = rng.standard_normal(batch + (T, N))
    y, last = rec.scan(a, (k, v), structure=structure, init=init, readout=c,
                       return_final_state=True)
    b = k[..., :, None] * v[..., None, :]
    want, want_last = reference.scan(structure, a, b, init=init, readout=c,
                                     matrix=True)
    np.testing.assert_allclose(y, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(last, want_last, rtol=1e-10, atol=1e-12)
    with pytest.raises(TypeError, match=r"b: expected an array or a tuple"):
        rec.scan(a, (k, v, v), structure=structure)


def test_out_receives_the_results_in_place():
    rng = np.random.default_rng(41)
    a = rng.uniform(-0.9, 0.9, (2, 7, 5)).astype(np.float32)
    b = rng.standard_normal((2, 7, 5)).astype(np.float32)
    init = rng.standard_normal((2, 5)).astype(np.float32)
    want, want_last = reference.scan("diagonal", a, b, init)
    out = np.full((2, 7, 5), np.nan, np.float32)
    last = np.full((2, 5), np.nan, np.float32)
    h, final = rec.scan(a, b, init=init, return_final_state=True, out=out,
                        final_state_out=last)
    assert h is out and final is last
    check(out, want, np.float32, 7, memory("diagonal"))
    check(last, want_last, np.float32, 7, memory("diagonal"))

    # A strided out (every other column of a wider array) is written
    # through, and the rest of the array is left alone.
    wide = np.zeros((2, 7, 10), np.float32)
    h = rec.scan(a, b, init=init, out=wide[..., ::2])
    assert np.shares_memory(h, wide)
    check(wide[..., ::2], want, np.float32, 7, memory("diagonal"))
    assert not wide[..., 1::2].any()

    # out may overlap an input: the result is as if it did not.
    b_copy = b.copy()
    h = rec.scan(a, b_copy, init=init, out=b_copy)
    assert h is b_copy
    check(b_copy, want, np.float32, 7, memory("diagonal"))


def test_out_is_checked():
    a = np.full((2, 4, 3), 0.5)
    with pytest.raises(TypeError, match="out: expected a numpy.ndarray"):
        rec.scan(a, a, out=[0.0])
    with pytest.raises(TypeError, match="out: expected dtype float64, got "
                       "float32"):
        rec.scan(a, a, out=np.zeros((2, 4, 3), np.float32))
    with pytest.raises(ValueError, match=r"out: expected shape \(2, 4, 3\), "
                       r"got \(2, 4\)"):
        rec.scan(a, a, out=np.zeros((2, 4)))
    frozen = np.zeros((2, 4, 3))
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="out: the array is read-only"):
        rec.scan(a, a, out=frozen)
    with pytest.raises(ValueError, match="final_state_out: needs "
                       "return_final_state=True"):
        rec.scan(a, a, final_state_out=np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"final_state_out: expected shape "
                       r"\(2, 3\)"):
        rec.scan(a, a, return_final_state=True,
                 final_state_out=np.zeros((2, 4)))
    both = np.zeros((2, 4, 3))
    with pytest.raises(ValueError, match="final_state_out: must not overlap "
                       "out"):
        rec.scan(a, a, return_final_state=True, out=both,
                 final_state_out=both[:, 0, :])


def _step_slice(x, batch_rank, t):
    """Step t of an operand (an array, a tuple of them, or None)."""
    if x is None:
        return None
    if isinstance(x, tuple):
        return tuple(y[(slice(None),) * batch_rank + (t,)] for y in x)
    return x[(slice(None),) * batch_rank + (t,)]


@pytest.mark.parametrize("variant", ["vector", "matrix", "factored_readout"])
@pytest.mark.parametrize("structure", STRUCTURES)
def test_step_by_step_decoding_equals_the_scan(structure, variant):
    # A prefix decoded token by token, the state advancing in place, equals
    # the full-sequence scan (and its final state) to 1e-12 in float64.
    rng = np.random.default_rng(seed("step", structure, variant))
    batch, T, N, D = (2, 3), 7, 6, 4
    a = transition(structure, rng, batch, T, N, np.float64)
    u = lambda shape: rng.uniform(-1, 1, shape)
    depth = (2,) if structure == "higher_order" else ()
    matrix = variant != "vector"
    columns = (D,) if matrix else ()
    state0 = u(batch + depth + (N,) + columns)
    readout = u(batch + (T, N)) if variant == "factored_readout" else None
    b = ((u(batch + (T, N)), u(batch + (T, D))) if readout is not None
         else u(batch + (T, N) + columns))
    want, want_last = rec.scan(a, b, structure=structure, init=state0,
                               readout=readout, return_final_state=True,
                               matrix=matrix or None)
    state = state0.copy()
    for t in range(T):
        args = [_step_slice(x, len(batch), t) for x in (a, b, readout)]
        if readout is None:
            result = rec.step(args[0], args[1], state, structure=structure,
                              matrix=matrix or None, state_out=state)
            assert result is state
            got = state[..., 0, :, :] if depth and matrix else (
                state[..., 0, :] if depth else state)
        else:
            y = np.empty(batch + (D,))
            got, result = rec.step(args[0], args[1], state,
                                   structure=structure, readout=args[2],
                                   out=y, state_out=state)
            assert got is y and result is state
        assert np.max(np.abs(got - want[(slice(None),) * len(batch) + (t,)])
                      ) <= 1e-12 * (1 + np.max(np.abs(want)))
    assert np.max(np.abs(state - want_last)) <= 1e-12 * (
        1 + np.max(np.abs(want_last)))


def test_step_errors():
    a, b, h = np.full((2, 4), 0.5), np.ones((2, 4)), np.zeros((2, 4))
    with pytest.raises(ValueError, match="out: a step without readout"):
        rec.step(a, b, h, out=np.empty((2, 4)))
    with pytest.raises(ValueError, match="init"):
        rec.step(a, b, np.zeros((2, 5)))
    with pytest.raises(TypeError, match="factored input"):
        rec.step(a, (b, b, b), h)

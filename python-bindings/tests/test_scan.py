"""rec.scan on every structure and schedule against the float64 reference."""

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


def tolerance(dtype):
    return 1e-10 if dtype == np.float64 else 3e-4


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


@pytest.mark.parametrize("structure,schedule,chunk,dtype,variant", cases())
def test_scan_matches_reference(structure, schedule, chunk, dtype, variant):
    rng = np.random.default_rng(hash((structure, schedule, variant)) % 2**32)
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
        np.testing.assert_allclose(h, want, rtol=tolerance(dtype),
                                   atol=tolerance(dtype))
        np.testing.assert_allclose(last, want_last, rtol=tolerance(dtype),
                                   atol=tolerance(dtype))


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
    a = np.full((1, 100000, 1), 0.5, np.float32)
    info = rec.explain(a, a, target="cuda")
    assert info["chosen_by"] == "cost model"
    assert info["schedule"] == info["candidates"][0][0]
    names = [name for name, _ in info["candidates"]]
    assert "sequential" in names and "scan" in names
    assert rec.explain(a, a, schedule="scan")["schedule"] == "scan"


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

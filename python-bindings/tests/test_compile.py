"""rec.compile and rec.Module: IR in, IR out, compiled functions."""

import numpy as np
import pytest
import recurrence as rec

import reference

SOURCE = """
func.func @f(%a: tensor<3x4xf64>, %b: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %h_dest = tensor.empty() : tensor<3x4xf64>
  %h = recurrence.scan diagonal reverse transition(%a : tensor<3x4xf64>)
      input(%b : tensor<3x4xf64>)
      outs(%h_dest : tensor<3x4xf64>) -> tensor<3x4xf64>
  return %h : tensor<3x4xf64>
}
"""


def test_compile_runs_static_function():
    f = rec.compile(SOURCE, "f")
    a, b = np.full((3, 4), 0.5), np.ones((3, 4))
    np.testing.assert_allclose(f(a, b)[:, 0], [1.75, 1.5, 1.0])
    # Every column is its own channel: reverse over T = 3, h_{4} = 0.
    rng = np.random.default_rng(5)
    a, b = rng.uniform(-0.9, 0.9, (3, 4)), rng.standard_normal((3, 4))
    want = np.zeros((3, 4))
    h = np.zeros(4)
    for t in (2, 1, 0):
        h = a[t] * h + b[t]
        want[t] = h
    np.testing.assert_allclose(f(a, b), want, rtol=1e-14, atol=1e-15)


def test_module_round_trip_and_pipeline():
    module = rec.Module.parse(SOURCE)
    assert "recurrence.scan diagonal reverse" in str(module)
    module.run_pipeline(
        "builtin.module(recurrence-select-schedule,recurrence-lower-sequential)")
    text = str(module)
    assert "recurrence.scan" not in text and "scf.for" in text


def test_scan_compiled_at_static_sizes():
    """A scan spec compiled for fixed sizes (what the GPU path does for the
    shapes it sees) has a static signature, computes the same states, and
    refuses other shapes."""
    from recurrence import _recurrence
    spec = dict(structure="diagonal", final_state=False, batch_rank=1,
                f64=True)
    sizes = dict(batch=[2], steps=5, size=3, columns=1)
    compiled = _recurrence.compile_scan(spec, sizes=sizes)
    args, _, results, _ = compiled.signature()
    assert args == [(2, 5, 3), (2, 5, 3)] and results == [(2, 5, 3)]
    rng = np.random.default_rng(11)
    a = rng.uniform(-0.9, 0.9, (2, 5, 3))
    b = rng.standard_normal((2, 5, 3))
    want = np.zeros((2, 5, 3))
    h = np.zeros((2, 3))
    for t in range(5):
        h = a[:, t] * h + b[:, t]
        want[:, t] = h
    (got,) = compiled([a, b], [[2, 5, 3]], [None])
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-15)
    with pytest.raises(ValueError):
        compiled([a[:, :4], b[:, :4]], [[2, 4, 3]], [None])


# Each structure's transition operands at N = 4 (block_diagonal: 2 x 2
# blocks), "T" standing for the steps.
TRANSITION_SHAPES = [
    ("scalar", [(2, "T")]),
    ("diagonal", [(2, "T", 4)]),
    ("block_diagonal", [(2, "T", 2, 2, 2)]),
    ("dplr", [(2, "T", 4), (2, "T", 4, 1), (2, "T", 4, 1)]),
    ("dense", [(2, "T", 4, 4)]),
    ("higher_order", [(2, "T", 2, 4)]),
]


@pytest.mark.parametrize("structure, a_shapes", TRANSITION_SHAPES)
@pytest.mark.parametrize("steps", [1, 3])
@pytest.mark.parametrize("init", [False, True])
def test_gradient_at_static_sizes(structure, a_shapes, steps, init):
    """The adjoint compiled for static sizes (as the GPU path compiles it)
    gives the gradients of the one compiled for any size, T = 1 included
    (where the reverse scan after the last step has no steps)."""
    from recurrence import api
    rng = np.random.default_rng([steps, int(init), len(structure)])
    shapes = [tuple(steps if s == "T" else s for s in shape)
              for shape in a_shapes]
    a = [rng.uniform(-0.4, 0.4, shape) for shape in shapes]
    b = rng.standard_normal((2, steps, 4))
    h0 = None
    if init:
        h0 = rng.standard_normal((2, 2, 4) if structure == "higher_order"
                                 else (2, 4))
    spec, sizes, operands, out_shape, last_shape = api._prepare(
        a[0] if len(a) == 1 else tuple(a), b, structure, h0, False, "auto",
        None, None, False, None)
    gout = rng.standard_normal(out_shape)
    want = api._gradients(spec, operands, gout, None, last_shape)
    got = api._gradients(spec, operands, gout, None, last_shape, sizes)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


# (higher_order takes a vector state: no factored input, no readout.)
@pytest.mark.parametrize("structure, a_shapes, variant", [
    (structure, a_shapes, variant)
    for structure, a_shapes in TRANSITION_SHAPES
    for variant in ("plain", "init_reverse_final", "factored", "readout")
    if structure != "higher_order" or variant not in ("factored", "readout")])
@pytest.mark.parametrize("steps, sized", [(1, True), (5, False), (5, True)])
def test_gradient_of_results_reads_the_states(structure, a_shapes, variant,
                                              steps, sized):
    """The gradient that takes the forward's results (gradient 3, reading
    the states from the output where it holds them) gives the gradients of
    the one that recomputes them, on every structure, with init, reversed,
    with a final state, a factored input and a readout (whose output holds
    no states), at T = 1 and beyond, on dynamic and static sizes."""
    from recurrence import api
    rng = np.random.default_rng([steps, len(variant), len(structure)])
    shapes = [tuple(steps if s == "T" else s for s in shape)
              for shape in a_shapes]
    a = [rng.uniform(-0.6, 0.6, shape) for shape in shapes]
    b = rng.standard_normal((2, steps, 4))
    if variant == "factored":
        b = (b, rng.standard_normal((2, steps, 3)))
    init = reverse = final = False
    h0 = readout = None
    if variant == "init_reverse_final":
        reverse = final = True
        h0 = rng.standard_normal((2, 2, 4) if structure == "higher_order"
                                 else (2, 4))
    if variant == "readout":
        readout = rng.standard_normal((2, steps, 4))
        b = (b, rng.standard_normal((2, steps, 3)))
    spec, sizes, operands, out_shape, last_shape = api._prepare(
        a[0] if len(a) == 1 else tuple(a), b, structure, h0, reverse, "auto",
        None, readout, final, None)
    sizes = sizes if sized else None
    results = api._run(spec, operands, out_shape, last_shape)
    gout = rng.standard_normal(out_shape)
    gfinal = rng.standard_normal(last_shape) if final else None
    want = api._gradients(spec, operands, gout, gfinal, last_shape, sizes)
    got = api._gradients(spec, operands, gout, gfinal, last_shape, sizes,
                         results=results)
    assert len(got) == len(want) == len(operands)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def _time_major(rng, B, T, N, low=None):
    """A [B, T, N] view of a time-contiguous [B, N, T] array."""
    x = (rng.uniform(low, 1.0, (B, N, T)) if low is not None else
         rng.standard_normal((B, N, T)))
    return x.transpose(0, 2, 1)


def test_stated_layouts_are_read_and_written_in_place():
    """Arguments and results whose layout the entry states (upstream's
    `bufferization.buffer_layout`) are used as the caller's strided
    buffers: a time-contiguous [B, N, T] array through its [B, T, N] view,
    and the states written back time-contiguous."""
    B, T, N = 3, 37, 5
    tensor = f"tensor<{B}x{T}x{N}xf64>"
    layout = (f"{{bufferization.buffer_layout = "
              f"strided<[{N * T}, 1, {T}]>}}")
    source = f"""
    func.func @f(%a: {tensor} {layout}, %b: {tensor} {layout})
        -> ({tensor} {layout}) {{
      %e = tensor.empty() : {tensor}
      %h = recurrence.scan diagonal transition(%a : {tensor})
          input(%b : {tensor}) outs(%e : {tensor}) -> {tensor}
      return %h : {tensor}
    }}"""
    f = rec.compile(source, "f")
    rng = np.random.default_rng(21)
    a, b = _time_major(rng, B, T, N, -0.9), _time_major(rng, B, T, N)
    h = f(a, b)
    assert h.strides == (N * T * 8, 8, T * 8)
    want, _ = reference.scan("diagonal", a, b)
    np.testing.assert_allclose(h, want, rtol=1e-13, atol=1e-14)
    # A buffer of another layout is refused, not misread.
    with pytest.raises(ValueError, match="expected strides"):
        f(np.ascontiguousarray(a), b)
    with pytest.raises(ValueError, match="expected strides"):
        f(a, b, outs=[np.empty((B, T, N))])


def test_stated_strides_of_new_results():
    """The strides a new result takes: contiguous where the entry states
    no layout or a dynamic stride (-1), the stated ones elsewhere; an empty
    dim makes the dims before it stride 0, as NumPy's products do."""
    from recurrence import _recurrence
    assert _recurrence.stated_strides((3, 5, 7), None) == (35, 7, 1)
    assert _recurrence.stated_strides((3, 5, 7), (-1, 1, 5)) == (35, 1, 5)
    assert _recurrence.stated_strides((2, 0, 4), None) == (0, 4, 1)
    assert _recurrence.stated_strides((), None) == ()


@pytest.mark.parametrize("schedule, chunk", [("sequential", 0),
                                             ("chunked", 8), ("scan", 0)])
@pytest.mark.parametrize("reverse", [False, True])
def test_scan_sizes_state_layouts(schedule, chunk, reverse):
    """recurrenceCompileScanAt's sizes state the layout of each argument
    and result: here the input and the output are time-contiguous, the
    transition and init contiguous."""
    from recurrence import _recurrence
    B, T, N = 2, 19, 3
    spec = dict(structure="diagonal", final_state=True, batch_rank=1,
                f64=True, init=True, reverse=reverse, schedule=schedule,
                chunk_size=chunk)
    time_major = [N * T, 1, T]
    sizes = dict(batch=[B], steps=T, size=N, columns=1,
                 arg_strides=[None, time_major],
                 result_strides=[time_major])
    compiled = _recurrence.compile_scan(spec, sizes=sizes)
    assert compiled.strides() == ([None, tuple(time_major), None],
                                  [tuple(time_major), None])
    rng = np.random.default_rng(22)
    a = rng.uniform(-0.9, 0.9, (B, T, N))
    b = _time_major(rng, B, T, N)
    init = rng.standard_normal((B, N))
    h, last = compiled([a, b, init], [[B, T, N], [B, N]])
    assert h.strides == (N * T * 8, 8, T * 8)
    want, want_last = reference.scan("diagonal", a, b, init, reverse)
    np.testing.assert_allclose(h, want, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(last, want_last, rtol=1e-13, atol=1e-14)


def _diagonal_adjoint(a, b, init, g, g_last, reverse):
    """The diagonal scan's gradients (da, db, dinit), plainly from the
    equations: mu_t = g_t + a_{t+1} mu_{t+1} (F added at the last step),
    da_t = mu_t h_{t-1}, db_t = mu_t, dinit = a_1 mu_1; reversed in T for a
    reverse scan."""
    if reverse:
        flip = lambda x: x[:, ::-1]
        da, db, dinit = _diagonal_adjoint(flip(a), flip(b), init, flip(g),
                                          g_last, False)
        return flip(da), flip(db), dinit
    B, T, N = a.shape
    h = np.zeros((B, T + 1, N))
    h[:, 0] = init
    for t in range(T):
        h[:, t + 1] = a[:, t] * h[:, t] + b[:, t]
    mu = np.zeros((B, T, N))
    carry = g_last.copy()
    for t in reversed(range(T)):
        carry = g[:, t] + carry
        mu[:, t] = carry
        carry = a[:, t] * carry
    return mu * h[:, :T], mu, carry


@pytest.mark.parametrize("results", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_gradient_sizes_state_layouts(results, reverse):
    """With a gradient, recurrenceCompileScanAt's layouts are those of the
    gradient's own arguments and results: the transition, the input, the
    output (when it takes the results) and the output's cotangent, and the
    gradients of the transition and the input, all time-contiguous, are
    read and written in place."""
    from recurrence import _recurrence
    B, T, N = 2, 19, 3
    spec = dict(structure="diagonal", final_state=True, batch_rank=1,
                f64=True, init=True, reverse=reverse, schedule="sequential")
    time_major = [N * T, 1, T]
    rng = np.random.default_rng(23)
    a = _time_major(rng, B, T, N, 0.5)
    b = _time_major(rng, B, T, N)
    init = rng.standard_normal((B, N))
    g = _time_major(rng, B, T, N)
    g_last = rng.standard_normal((B, N))
    operands = [a, b, init]
    if results:
        operands += list(reference.scan("diagonal", a, b, init, reverse))
        operands[3] = np.ascontiguousarray(
            operands[3].transpose(0, 2, 1)).transpose(0, 2, 1)
    args = operands + [g, g_last]
    arg_strides = [time_major if x.ndim == 3 else None for x in args]
    sizes = dict(batch=[B], steps=T, size=N, columns=1,
                 arg_strides=arg_strides,
                 result_strides=[time_major, time_major])
    compiled = _recurrence.compile_scan(spec, gradient=3 if results else 1,
                                        sizes=sizes)
    assert compiled.strides() == (
        [None if s is None else tuple(s) for s in arg_strides],
        [tuple(time_major), tuple(time_major), None])
    da, db, dinit = compiled(args, [[B, T, N], [B, T, N], [B, N]])
    assert da.strides == db.strides == (N * T * 8, 8, T * 8)
    want = _diagonal_adjoint(a, b, init, g, g_last, reverse)
    for got, expected in zip((da, db, dinit), want):
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-13)
    # Contiguous cotangents are refused, not misread.
    with pytest.raises(ValueError, match="expected strides"):
        compiled(args[:-2] + [np.ascontiguousarray(g), g_last],
                 [[B, T, N], [B, T, N], [B, N]])


def test_layout_errors():
    """Layouts that cannot be stated get a clear error."""
    from recurrence import _recurrence
    source = SOURCE.replace(
        "%a: tensor<3x4xf64>",
        "%a: tensor<3x4xf64> {bufferization.buffer_layout = "
        "strided<[1, 3], offset: 2>}")
    with pytest.raises(ValueError, match="offset 0"):
        rec.compile(source, "f")
    spec = dict(structure="diagonal", final_state=False, batch_rank=1)
    for strides, message in [([[1, 2]], "3 positive integers"),
                             ([None, [0, 1, 1]], "3 positive integers"),
                             ([None, None, None], "3 argument layouts")]:
        sizes = dict(batch=[2], steps=5, size=3, columns=1,
                     arg_strides=strides)
        with pytest.raises(ValueError, match=message):
            _recurrence.compile_scan(spec, sizes=sizes)


SHARED_FILL = """
#s = affine_map<(b, i, j) -> (b, i, j)>
#x = affine_map<(b, i, j) -> (b, j)>
#o = affine_map<(b, i, j) -> (b, i)>
func.func @f(%s: tensor<3x5x4xf64>, %x: tensor<3x4xf64>, %y: tensor<3x4xf64>)
    -> (tensor<3x5xf64>, tensor<3x5xf64>) {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<3x5xf64>
  %z = linalg.fill ins(%zero : f64) outs(%e : tensor<3x5xf64>) -> tensor<3x5xf64>
  %sx = linalg.generic {indexing_maps = [#s, #x, #o],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s, %x : tensor<3x5x4xf64>, tensor<3x4xf64>) outs(%z : tensor<3x5xf64>) {
  ^bb0(%si: f64, %xi: f64, %acc: f64):
    %p = arith.mulf %si, %xi : f64
    %r = arith.addf %acc, %p : f64
    linalg.yield %r : f64
  } -> tensor<3x5xf64>
  %sy = linalg.generic {indexing_maps = [#s, #x, #o],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s, %y : tensor<3x5x4xf64>, tensor<3x4xf64>) outs(%z : tensor<3x5xf64>) {
  ^bb0(%si: f64, %yi: f64, %acc: f64):
    %p = arith.mulf %si, %yi : f64
    %r = arith.addf %acc, %p : f64
    linalg.yield %r : f64
  } -> tensor<3x5xf64>
  return %sx, %sy : tensor<3x5xf64>, tensor<3x5xf64>
}
"""


def test_results_from_one_shared_fill_are_each_their_own():
    """Two reductions into one zero fill (as CSE leaves them), both
    returned: each result is written into its own buffer (empty-tensor
    elimination once put both in the first result's)."""
    rng = np.random.default_rng(11)
    s = rng.standard_normal((3, 5, 4))
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    sx, sy = rec.compile(SHARED_FILL, "f")(s, x, y)
    np.testing.assert_allclose(sx, np.einsum("bij,bj->bi", s, x), rtol=1e-13)
    np.testing.assert_allclose(sy, np.einsum("bij,bj->bi", s, y), rtol=1e-13)


GATED_ATTENTION = """
func.func @f(%a: tensor<2x9x3xf64>, %k: tensor<2x9x3xf64>,
             %v: tensor<2x9x5xf64>, %q: tensor<2x9x3xf64>) -> tensor<2x9x5xf64> {
  %y_dest = tensor.empty() : tensor<2x9x5xf64>
  %y = recurrence.scan diagonal matrix transition(%a : tensor<2x9x3xf64>)
      factored_input(%k, %v : tensor<2x9x3xf64>, tensor<2x9x5xf64>)
      readout(%q : tensor<2x9x3xf64>)
      outs(%y_dest : tensor<2x9x5xf64>) -> tensor<2x9x5xf64>
  return %y : tensor<2x9x5xf64>
}
"""


@pytest.mark.parametrize("cleanup", ["", ",canonicalize,cse"])
def test_derived_gradient_of_gated_attention(cleanup):
    """-recurrence-differentiate run by the user, then canonicalize and cse
    (which share the projections' zero fills), compiled: every gradient
    against the adjoint written out from S_t = diag(a_t) S_{t-1} + k_t v_t^T,
    y_t = S_t^T q_t."""
    rng = np.random.default_rng(12)
    a = rng.uniform(0.2, 1.0, (2, 9, 3))
    k, q = rng.standard_normal((2, 9, 3)), rng.standard_normal((2, 9, 3))
    v, y_bar = rng.standard_normal((2, 9, 5)), rng.standard_normal((2, 9, 5))
    module = rec.Module.parse(GATED_ATTENTION)
    module.run_pipeline(f"builtin.module(recurrence-differentiate{cleanup})")
    got = rec.compile(str(module), "f_grad")(a, k, v, q, y_bar)
    states = np.zeros((2, 10, 3, 5))  # S_0 = 0, then S_1 .. S_T
    for t in range(9):
        states[:, t + 1] = (a[:, t, :, None] * states[:, t] +
                            k[:, t, :, None] * v[:, t, None, :])
    want = [np.zeros_like(a), np.zeros_like(k), np.zeros_like(v),
            np.zeros_like(q)]
    mu = np.zeros((2, 3, 5))  # dL/dS_t, from t = T down
    for t in reversed(range(9)):
        mu = q[:, t, :, None] * y_bar[:, t, None, :] + (
            a[:, t + 1, :, None] * mu if t + 1 < 9 else 0)
        want[0][:, t] = (mu * states[:, t]).sum(-1)
        want[1][:, t] = (mu * v[:, t, None, :]).sum(-1)
        want[2][:, t] = (mu * k[:, t, :, None]).sum(-2)
        want[3][:, t] = (states[:, t + 1] * y_bar[:, t, None, :]).sum(-1)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)

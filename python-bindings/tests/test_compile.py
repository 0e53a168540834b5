"""rec.compile and rec.Module: IR in, IR out, compiled functions."""

import numpy as np
import pytest
import recurrence as rec

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


@pytest.mark.parametrize("structure, a_shapes", [
    ("scalar", [(2, "T")]),
    ("diagonal", [(2, "T", 4)]),
    ("block_diagonal", [(2, "T", 2, 2, 2)]),
    ("dplr", [(2, "T", 4), (2, "T", 4, 1), (2, "T", 4, 1)]),
    ("dense", [(2, "T", 4, 4)]),
    ("higher_order", [(2, "T", 2, 4)]),
])
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

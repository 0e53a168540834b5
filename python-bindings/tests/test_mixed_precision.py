"""float16 (and, with ml_dtypes, bfloat16) operands with a float32 state:
every structure and schedule against the float64 reference on the same
rounded operands, the dtypes of the results, and the errors of mixing."""

import numpy as np
import pytest
import recurrence as rec
from recurrence import _recurrence

import reference
from test_scan import SCHEDULES, STRUCTURES, memory, seed, transition

NARROW = [np.float16] + ([_recurrence.ml_dtypes.bfloat16]
                         if _recurrence.ml_dtypes else [])
# Twice the unit roundoff of the output's dtype.
OUTPUT_ROUNDING = {np.dtype(np.float16): 2.0 ** -11,
                   np.dtype(_recurrence.BFLOAT16): 2.0 ** -8}


def narrow(x, dtype):
    if x is None:
        return None
    if isinstance(x, tuple):
        return tuple(narrow(y, dtype) for y in x)
    return x.astype(dtype)


def wide(x):
    if x is None:
        return None
    if isinstance(x, tuple):
        return tuple(wide(y) for y in x)
    return x.astype(np.float64)


@pytest.mark.parametrize("dtype", NARROW, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("schedule,chunk", SCHEDULES)
@pytest.mark.parametrize("structure", STRUCTURES)
def test_float32_state_matches_reference(structure, schedule, chunk, dtype):
    rng = np.random.default_rng(seed("mixed", structure, schedule))
    batch, T, N = (2,), 37, 6
    a = narrow(transition(structure, rng, batch, T, N, np.float64), dtype)
    b = rng.uniform(-1, 1, batch + (T, N)).astype(dtype)
    h0 = rng.uniform(-1, 1, batch + (N,)).astype(np.float32)
    if structure == "higher_order":
        h0 = rng.uniform(-1, 1, batch + (2, N)).astype(np.float32)
    reverse = schedule == "scan"
    h, last = rec.scan(a, b, structure=structure, init=h0, reverse=reverse,
                       schedule=schedule, chunk_size=chunk,
                       return_final_state=True)
    assert h.dtype == np.dtype(dtype) and last.dtype == np.float32
    want, want_last = reference.scan(structure, wide(a), wide(b),
                                     init=wide(h0), reverse=reverse)
    tol = reference.tolerance(np.float32, T, memory(structure))
    assert reference.relative_error(h, want) <= (
        tol + OUTPUT_ROUNDING[np.dtype(dtype)])
    # The state stays float32: its error is float32 roundoff.
    assert reference.relative_error(last, want_last) <= tol


def test_factored_readout_in_float16():
    rng = np.random.default_rng(seed("mixed", "readout"))
    T, N, D = 29, 4, 3
    a = rng.uniform(0.5, 1, (T, N)).astype(np.float16)
    k = rng.uniform(-1, 1, (T, N)).astype(np.float16)
    v = rng.uniform(-1, 1, (T, D)).astype(np.float16)
    c = rng.uniform(-1, 1, (T, N)).astype(np.float16)
    y, last = rec.scan(a, (k, v), readout=c, return_final_state=True)
    assert y.dtype == np.float16 and last.dtype == np.float32
    h = np.zeros((N, D))
    want = np.zeros((T, D))
    for t in range(T):
        h = wide(a[t])[:, None] * h + np.outer(wide(k[t]), wide(v[t]))
        want[t] = wide(c[t]) @ h
    tol = reference.tolerance(np.float32, T)
    assert reference.relative_error(y, want) <= tol + 2.0 ** -11
    assert reference.relative_error(last, h) <= tol


def test_init_must_be_float32():
    a = np.full((1, 4, 3), 0.5, np.float16)
    with pytest.raises(TypeError, match="init: expected dtype float32"):
        rec.scan(a, a, init=np.zeros((1, 3), np.float16))
    with pytest.raises(TypeError, match="b: expected dtype float16"):
        rec.scan(a, a.astype(np.float32))


def test_compiled_ir_takes_bfloat16_buffers():
    """User IR on bf16: NumPy holds bf16 as ml_dtypes.bfloat16, or as its
    raw 16 bits (uint16) without ml_dtypes."""
    fn = rec.compile("""
      func.func @f(%a: tensor<1x3x2xbf16>, %b: tensor<1x3x2xbf16>)
          -> (tensor<1x3x2xbf16>, tensor<1x2xf32>) {
        %h_dest = tensor.empty() : tensor<1x3x2xbf16>
        %last_dest = tensor.empty() : tensor<1x2xf32>
        %h, %last = recurrence.scan diagonal accumulate(f32)
            transition(%a : tensor<1x3x2xbf16>) input(%b : tensor<1x3x2xbf16>)
            outs(%h_dest, %last_dest : tensor<1x3x2xbf16>, tensor<1x2xf32>)
            -> tensor<1x3x2xbf16>, tensor<1x2xf32>
        return %h, %last : tensor<1x3x2xbf16>, tensor<1x2xf32>
      }""", "f")
    bf16 = _recurrence.BFLOAT16

    def to_bf16(x):  # exact here: every value has 8 significant bits
        bits = np.asarray(x, np.float32).view(np.uint32) >> 16
        return bits.astype(np.uint16).view(bf16)

    def from_bf16(x):
        return (x.view(np.uint16).astype(np.uint32) << 16).view(np.float32)

    a = to_bf16(np.full((1, 3, 2), 0.5))
    b = to_bf16(np.ones((1, 3, 2)))
    h, last = fn(a, b)
    assert h.dtype == bf16 and last.dtype == np.float32
    np.testing.assert_array_equal(from_bf16(h)[0, :, 0], [1, 1.5, 1.75])
    np.testing.assert_array_equal(last, [[1.75, 1.75]])
    with pytest.raises(TypeError, match="argument 0: expected dtype"):
        fn(np.zeros((1, 3, 2), np.float32), b)


TORCH_NARROW = ["float16", "bfloat16"]


@pytest.mark.parametrize("name", TORCH_NARROW)
@pytest.mark.parametrize("structure", ["diagonal", "block_diagonal", "dplr"])
def test_torch_narrow_forward_and_backward(structure, name):
    """torch float16 / bfloat16 operands with a float32 state: the forward
    against the float64 reference, and the gradients (rounded to each
    operand's dtype) against float64 autograd through the same op."""
    torch = pytest.importorskip("torch")
    import recurrence.torch as rt
    dtype = getattr(torch, name)
    rng = np.random.default_rng(seed("torch-mixed", structure, name))
    batch, T, N = (2,), 23, 6
    a = transition(structure, rng, batch, T, N, np.float64)
    a = tuple(torch.tensor(x).to(dtype) for x in a) if isinstance(
        a, tuple) else torch.tensor(a).to(dtype)
    b = torch.tensor(rng.uniform(-1, 1, batch + (T, N))).to(dtype)
    h0 = torch.tensor(rng.uniform(-1, 1, batch + (N,)), dtype=torch.float32)
    w = torch.tensor(rng.uniform(-1, 1, batch + (T, N)))

    def leaves(x, to):
        if isinstance(x, tuple):
            return tuple(leaves(y, to) for y in x)
        return x.detach().to(to).requires_grad_()

    def run(a, b, h0):
        h, last = rt.scan(a, b, structure=structure, init=h0,
                          return_final_state=True)
        loss = (h.double() * w).sum() + last.double().sum()
        flat = list(a) if isinstance(a, tuple) else [a]
        grads = torch.autograd.grad(loss, flat + [b, h0])
        return h, last, grads

    h, last, grads = run(leaves(a, dtype), leaves(b, dtype),
                         leaves(h0, torch.float32))
    assert h.dtype == dtype and last.dtype == torch.float32
    want_h, want_last, want_grads = run(leaves(a, torch.float64),
                                        leaves(b, torch.float64),
                                        leaves(h0, torch.float64))
    rounding = 2.0 ** -8 if name == "bfloat16" else 2.0 ** -11
    tol = reference.tolerance(np.float32, T)
    assert reference.relative_error(h.detach().double().numpy(),
                                    want_h.detach().numpy()) <= tol + rounding
    assert reference.relative_error(last.detach().double().numpy(),
                                    want_last.detach().numpy()) <= tol
    # The output's cotangent arrives rounded to the output's dtype, and each
    # gradient is rounded to its operand's: two roundings.
    dtypes = [dtype] * (len(grads) - 1) + [torch.float32]  # init's last
    for got, want, want_dtype in zip(grads, want_grads, dtypes):
        assert got.dtype == want_dtype
        assert reference.relative_error(got.double().numpy(),
                                        want.numpy()) <= tol + 2 * rounding


def test_torch_narrow_errors():
    torch = pytest.importorskip("torch")
    import recurrence.torch as rt
    a = torch.full((1, 4, 3), 0.5, dtype=torch.bfloat16)
    with pytest.raises(TypeError, match="init: expected dtype torch.float32"):
        rt.scan(a, a, init=torch.zeros(1, 3, dtype=torch.bfloat16))
    with pytest.raises(TypeError, match="b: expected dtype torch.bfloat16"):
        rt.scan(a, a.float())
    with pytest.raises(TypeError, match="taken by recurrence.torch.scan only"):
        rt.hlru(torch.zeros(1, 4, 2, 3, dtype=torch.bfloat16), a)

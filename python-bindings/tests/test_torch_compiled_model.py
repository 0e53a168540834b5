"""recurrence.torch.selective_ssm on CPU tensors runs as the compiler's
model op, forward, and its derived gradient, backward. Its outputs are
checked against a float64 loop over time written from the model's
equations, and its gradients against the composed form (a scan and torch
ops, itself checked by gradcheck in test_torch.py), over batch dims (none,
several, 0), T = 1 and T not a multiple of the chunk, with and without D,
init and the final state, float64 and float32."""

import zlib

import numpy as np
import pytest
import torch

import recurrence
import recurrence.torch as rt


def loop(x, delta, A, B, C, D, init):
    """y and h_T of the selective SSM, float64, step by step."""
    x, delta, A, B, C = (np.asarray(v, np.float64) for v in (x, delta, A, B,
                                                             C))
    batch, (T, dm), n = x.shape[:-2], x.shape[-2:], A.shape[-1]
    h = (np.zeros(batch + (n, dm)) if init is None
         else np.asarray(init, np.float64))
    ys = []
    for t in range(T):
        a = np.exp(delta[..., t, None, :] * A.T)
        h = a * h + B[..., t, :, None] * (delta[..., t, :] * x[..., t, :])[
            ..., None, :]
        y = np.einsum("...n,...nd->...d", C[..., t, :], h)
        ys.append(y if D is None else y + D * x[..., t, :])
    return np.stack(ys, -2) if ys else np.zeros(x.shape), h


CASES = [
    # batch dims, T, Dm, N, D, init, final state, schedule
    ((2,), 7, 5, 3, True, True, True, "auto"),
    ((), 1, 4, 2, False, False, False, "sequential"),
    ((2, 3), 37, 3, 4, True, False, True, ("chunked", 8)),
    ((0,), 5, 3, 2, True, True, True, "auto"),
    ((1,), 9, 6, 1, False, True, False, ("chunked", 4)),
]


def case_tensors(case, dtype, seed):
    batch, T, dm, n, with_d, with_init, _, _ = case
    rng = np.random.default_rng(seed)
    t = lambda v: torch.tensor(v, dtype=dtype, requires_grad=True)
    x = t(rng.standard_normal(batch + (T, dm)))
    delta = t(rng.uniform(0.05, 0.5, batch + (T, dm)))
    A = t(-rng.uniform(0.5, 1.5, (dm, n)))
    B = t(rng.standard_normal(batch + (T, n)))
    C = t(rng.standard_normal(batch + (T, n)))
    D = t(rng.standard_normal(dm)) if with_d else None
    init = t(rng.standard_normal(batch + (n, dm))) if with_init else None
    return x, delta, A, B, C, D, init


def run(case, operands, composed=False):
    *_, final, schedule = case
    kwargs = dict(return_final_state=final, chunk_size=None)
    if isinstance(schedule, tuple):
        kwargs.update(schedule=schedule[0], chunk_size=schedule[1])
    else:
        kwargs.update(schedule=schedule)
    if composed:
        x, delta, A, B, C, D, init = operands
        out = rt._composed_selective_ssm(x, delta, A, B, C, D, init,
                                         offsets=None, **kwargs)
    else:
        *ops, D, init = operands
        out = rt.selective_ssm(*ops, D, init=init, **kwargs)
    return out if final else (out,)


@pytest.mark.parametrize("case", CASES, ids=str)
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_compiled_model_matches_loop_and_composed_gradients(case, dtype):
    operands = case_tensors(case, dtype, zlib.crc32(str(case).encode()))
    outs = run(case, operands)
    assert outs[0].grad_fn is not None
    assert type(outs[0].grad_fn).__name__ == "_SelectiveSSMModelBackward"
    y, h = loop(*(None if v is None else v.detach().numpy()
                  for v in operands))
    # float32: the state's rounding over T steps, relative to the values.
    tol = 1e-12 if dtype == torch.float64 else 2e-6
    scale = max(1.0, float(np.abs(y).max(initial=0)))
    np.testing.assert_allclose(outs[0].detach().numpy(), y, rtol=tol,
                               atol=tol * scale)
    if len(outs) > 1:
        np.testing.assert_allclose(outs[1].detach().numpy(), h, rtol=tol,
                                   atol=tol * scale)
    rng = np.random.default_rng(5)
    weights = [torch.tensor(rng.uniform(-1, 1, o.shape), dtype=dtype)
               for o in outs]
    leaves = [v for v in operands if v is not None]
    loss = lambda outs: sum((o * w).sum() for o, w in zip(outs, weights))
    got = torch.autograd.grad(loss(outs), leaves)
    want = torch.autograd.grad(loss(run(case, operands, composed=True)),
                               leaves)
    for i, (g, w) in enumerate(zip(got, want)):
        scale = max(1.0, float(w.abs().max())) if w.numel() else 1.0
        torch.testing.assert_close(g, w, rtol=tol, atol=tol * scale,
                                   msg=lambda m: f"operand #{i}: {m}")


@pytest.mark.parametrize("packed", [True, False])
def test_packed_sequences_and_double_backward(packed):
    """Offsets go to the model op; a backward under create_graph goes
    through the composed form, so the second order is its own (which
    packed sequences do not have yet: that is refused the same way)."""
    rng = np.random.default_rng(9)
    t = lambda v: torch.tensor(v, requires_grad=True)
    x, B, C = (t(rng.standard_normal(s)) for s in ((2, 9, 3), (2, 9, 2),
                                                     (2, 9, 2)))
    delta = t(rng.uniform(0.1, 0.5, (2, 9, 3)))
    A = t(-rng.uniform(0.5, 1.5, (3, 2)))
    offsets = torch.tensor([0, 4, 4, 9]) if packed else None
    init = t(rng.standard_normal((2, 3, 2, 3) if packed else (2, 2, 3)))
    leaves = [x, delta, A, B, C, init]

    def grads(composed, order):
        model = (rt._composed_selective_ssm if composed else
                 lambda *a, **k: rt.selective_ssm(*a[:6], init=a[6], **k))
        y, last = model(x, delta, A, B, C, None, init,
                        return_final_state=True, schedule="auto",
                        chunk_size=None, offsets=offsets)
        assert composed or (type(y.grad_fn).__name__ ==
                            "_SelectiveSSMModelBackward")
        first = torch.autograd.grad((y * y).sum() + (last * last).sum(),
                                    leaves, create_graph=order > 1)
        if order == 1:
            return first
        return first + torch.autograd.grad(sum((g * g).sum() for g in first),
                                           leaves)

    for got, want in zip(grads(False, 1), grads(True, 1)):
        torch.testing.assert_close(got, want, rtol=1e-10, atol=1e-12)
    if packed:
        with pytest.raises(NotImplementedError, match="packed"):
            grads(False, 2)
        return
    for got, want in zip(grads(False, 2), grads(True, 2)):
        torch.testing.assert_close(got, want, rtol=1e-10, atol=1e-12)


def test_numpy_gradient_of_the_model_op():
    """recurrence.selective_ssm_gradient: the model op's derived gradient,
    against the torch composed form's."""
    case = ((3,), 11, 4, 3, True, True, True, "auto")
    operands = case_tensors(case, torch.float64, 3)
    outs = run(case, operands, composed=True)
    rng = np.random.default_rng(4)
    bars = [rng.uniform(-1, 1, o.shape) for o in outs]
    leaves = [v for v in operands if v is not None]
    want = torch.autograd.grad(outs, leaves,
                               [torch.tensor(b) for b in bars])
    x, delta, A, B, C, D, init = (v.detach().numpy() for v in operands)
    got = recurrence.selective_ssm_gradient(
        x, delta, A, B, C, D, init=init, y_bar=bars[0],
        final_state_bar=bars[1])
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="y_bar: expected shape"):
        recurrence.selective_ssm_gradient(x, delta, A, B, C, y_bar=bars[0][:, 1:])


def test_parameters_and_inference():
    """Module parameters (Mamba's A, D) take the compiled path too, and so
    does a call that needs no gradient."""
    case = ((2,), 6, 3, 2, True, False, False, "auto")
    x, delta, A, B, C, D, _ = case_tensors(case, torch.float64, 8)
    A, D = torch.nn.Parameter(A.detach()), torch.nn.Parameter(D.detach())
    y = rt.selective_ssm(x, delta, A, B, C, D)
    assert type(y.grad_fn).__name__ == "_SelectiveSSMModelBackward"
    with torch.no_grad():
        y0 = rt.selective_ssm(x, delta, A, B, C, D)
    want, _ = loop(*(v.detach().numpy() for v in (x, delta, A, B, C, D)),
                   None)
    for got in (y, y0):
        np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-12,
                                   atol=1e-12)


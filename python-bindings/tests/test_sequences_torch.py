"""Packed sequences through recurrence.torch: the forward and every
gradient of a packed scan against the same scan run on each sequence alone,
torch.autograd.gradcheck and gradgradcheck (central differences) on packed
scans, and the errors of bad offsets."""

import numpy as np
import pytest

import torch
import recurrence.torch as rt

from test_scan import transition
from test_torch import leaves as flat, tensors as leaf
from test_sequences import OFFSETS, S, T, steps


def grads_of(loss, tensors):
    return torch.autograd.grad(loss, tensors, allow_unused=True)


def loss_of_each_sequence_alone(models, outs, lasts, weights, inits):
    """The loss sum((x * w).sum()) of a packed call's outputs `outs` and
    final states `lasts`, recomputed from each sequence run alone
    (`models(steps, s)` gives its outputs and final states from its inits;
    an empty one's final states are its `inits`), after checking that each
    equals its part of the packed results."""
    loss = 0.0
    for s, (lo, hi) in enumerate(zip(OFFSETS[:-1], OFFSETS[1:])):
        part = slice(int(lo), int(hi))
        alone, alone_lasts = (models(part, s) if lo < hi
                              else ([], [x[:, s] for x in inits]))
        for t, packed, w in zip(alone, outs, weights):
            torch.testing.assert_close(packed[:, part], t, rtol=1e-11,
                                       atol=1e-12)
            loss = loss + (t * w[:, part]).sum()
        for t, packed, w in zip(alone_lasts, lasts, weights[len(outs):]):
            torch.testing.assert_close(packed[:, s], t, rtol=1e-11,
                                       atol=1e-12)
            loss = loss + (t * w[:, s]).sum()
    return loss


@pytest.mark.parametrize("structure", ["identity", "scalar", "diagonal",
                                       "block_diagonal", "dplr", "dense"])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("offset_dtype", [torch.int64, torch.int32])
def test_gradients_match_each_sequence_alone(structure, reverse,
                                             offset_dtype):
    rng = np.random.default_rng(11)
    batch, N = (2,), 6
    a = leaf(transition(structure, rng, batch, T, N, np.float64))
    b = leaf(rng.uniform(-1, 1, batch + (T, N)))
    init = leaf(rng.uniform(-1, 1, batch + (S, N)))
    gh = torch.tensor(rng.uniform(-1, 1, batch + (T, N)))
    glast = torch.tensor(rng.uniform(-1, 1, batch + (S, N)))
    offsets = torch.tensor(OFFSETS, dtype=offset_dtype)
    h, last = rt.scan(a, b, structure=structure, init=init, reverse=reverse,
                      return_final_state=True, offsets=offsets)
    tensors = flat(a, b, init)
    got = grads_of((h * gh).sum() + (last * glast).sum(), tensors)

    loss = 0.0
    for s, (lo, hi) in enumerate(zip(OFFSETS[:-1], OFFSETS[1:])):
        if lo == hi:
            loss = loss + (init[:, s] * glast[:, s]).sum()
            continue
        hs, ls = rt.scan(steps(a, lo, hi, 1), b[:, lo:hi],
                         structure=structure, init=init[:, s],
                         reverse=reverse, return_final_state=True)
        torch.testing.assert_close(h[:, lo:hi], hs, rtol=1e-12, atol=1e-12)
        loss = loss + (hs * gh[:, lo:hi]).sum() + (ls * glast[:, s]).sum()
    want = grads_of(loss, tensors)
    for name, g, w in zip(["a"] * (len(tensors) - 2) + ["b", "init"], got,
                          want):
        torch.testing.assert_close(g, w, rtol=1e-10, atol=1e-10,
                                   msg=lambda m: f"d{name}: {m}")


@pytest.mark.parametrize("schedule,chunk", [("sequential", None),
                                            ("chunked", 4)])
def test_linear_attention_gradients_match_each_sequence_alone(schedule,
                                                              chunk):
    """Identity on a matrix state with a factored input and a readout,
    reversed, with inits and final states."""
    rng = np.random.default_rng(12)
    k, v, q = (leaf(rng.uniform(-1, 1, (1, T, n))) for n in (4, 3, 4))
    init = leaf(rng.uniform(-1, 1, (1, S, 4, 3)))
    gy = torch.tensor(rng.uniform(-1, 1, (1, T, 3)))
    glast = torch.tensor(rng.uniform(-1, 1, (1, S, 4, 3)))
    offsets = torch.tensor(OFFSETS)
    y, last = rt.scan(None, (k, v), structure="identity", readout=q,
                      init=init, reverse=True, schedule=schedule,
                      chunk_size=chunk, return_final_state=True,
                      offsets=offsets)
    got = grads_of((y * gy).sum() + (last * glast).sum(), [k, v, q, init])
    loss = 0.0
    for s, (lo, hi) in enumerate(zip(OFFSETS[:-1], OFFSETS[1:])):
        if lo == hi:
            loss = loss + (init[:, s] * glast[:, s]).sum()
            continue
        ys, ls = rt.scan(None, (k[:, lo:hi], v[:, lo:hi]),
                         structure="identity", readout=q[:, lo:hi],
                         init=init[:, s], reverse=True,
                         return_final_state=True)
        loss = loss + (ys * gy[:, lo:hi]).sum() + (ls * glast[:, s]).sum()
    want = grads_of(loss, [k, v, q, init])
    for name, g, w in zip(["k", "v", "q", "init"], got, want):
        torch.testing.assert_close(g, w, rtol=1e-10, atol=1e-10,
                                   msg=lambda m: f"d{name}: {m}")


@pytest.mark.parametrize("structure", ["diagonal", "dplr"])
def test_gradcheck(structure):
    """Central differences of a packed scan: lengths 2, 0, 3, 1."""
    rng = np.random.default_rng(13)
    offsets = torch.tensor([0, 2, 2, 5, 6])
    a = leaf(transition(structure, rng, (1,), 6, 3, np.float64))
    b = leaf(rng.uniform(-1, 1, (1, 6, 3)))
    init = leaf(rng.uniform(-1, 1, (1, 4, 3)))
    tensors = flat(a, b, init)
    count = len(tensors) - 2

    def f(*xs):
        a_ = xs[0] if count == 1 else tuple(xs[:count])
        return rt.scan(a_, xs[count], structure=structure, init=xs[-1],
                       return_final_state=True, offsets=offsets)

    assert torch.autograd.gradcheck(f, tensors)


@pytest.mark.parametrize("structure,readout,with_init", [
    ("diagonal", False, True), ("block_diagonal", False, True),
    ("dplr", False, True), ("dplr", True, True), ("diagonal", False, False)])
@pytest.mark.parametrize("reverse", [False, True])
def test_gradgradcheck(structure, readout, with_init, reverse):
    """The double backward over packed sequences (lengths 2, 0, 3, 1, with
    an init each or none, and final states), 2 batch elements: the
    compiler's second-order gradient of the packed adjoint, by central
    differences of the first-order one."""
    rng = np.random.default_rng(16)
    offsets = torch.tensor([0, 2, 2, 5, 6])
    N = 6 if structure == "block_diagonal" else 3
    a = leaf(transition(structure, rng, (2,), 6, N, np.float64))
    b = leaf(rng.uniform(-1, 1, (2, 6, N)))
    init = leaf(rng.uniform(-1, 1, (2, 4, N))) if with_init else None
    c = leaf(rng.uniform(-1, 1, (2, 6, N))) if readout else None
    tensors = flat(a, b, init, c)
    count = len(flat(a))

    def f(*xs):
        a_ = xs[0] if count == 1 else tuple(xs[:count])
        rest = list(xs[count + 1:])
        return rt.scan(a_, xs[count], structure=structure,
                       init=rest.pop(0) if with_init else None,
                       readout=rest.pop(0) if readout else None,
                       reverse=reverse, return_final_state=True,
                       offsets=offsets)

    assert torch.autograd.gradgradcheck(f, tensors, eps=1e-6, atol=1e-6)


def test_double_backward_of_empty_sequences():
    """T = 0 over two empty sequences: nothing is compiled, each init's
    gradient is its final state's cotangent, so the second order passes
    init's cotangent to that cotangent."""
    a = torch.zeros(2, 0, 3, dtype=torch.float64, requires_grad=True)
    b = torch.zeros(2, 0, 3, dtype=torch.float64, requires_grad=True)
    init = torch.randn(2, 2, 3, dtype=torch.float64, requires_grad=True)
    offsets = torch.tensor([0, 0, 0])
    w = torch.randn(2, 2, 3, dtype=torch.float64)
    _, last = rt.scan(a, b, init=init, return_final_state=True,
                      offsets=offsets)
    (g,) = torch.autograd.grad((last * w).sum(), init, create_graph=True)
    torch.testing.assert_close(g, w)
    assert torch.autograd.gradgradcheck(
        lambda h: rt.scan(a, b, init=h, return_final_state=True,
                          offsets=offsets)[1], (init,))


def test_bad_offsets():
    b = torch.zeros(1, 5, 3)
    a = torch.zeros(1, 5, 3)
    with pytest.raises(TypeError, match="offsets: expected a torch.Tensor"):
        rt.scan(a, b, offsets=[0, 5])
    with pytest.raises(TypeError, match="offsets: expected integers"):
        rt.scan(a, b, offsets=torch.tensor([0.0, 5.0]))
    with pytest.raises(ValueError, match="offsets: expected a 1-d tensor"):
        rt.scan(a, b, offsets=torch.tensor([[0, 5]]))
    with pytest.raises(ValueError, match="offsets: expected bounds from 0 "
                                         "to T = 5"):
        rt.scan(a, b, offsets=torch.tensor([0, 4]))
    with pytest.raises(ValueError, match="non-decreasing"):
        rt.scan(a, b, offsets=torch.tensor([0, 3, 2, 5]))
    with pytest.raises(ValueError, match="init"):
        rt.scan(a, b, offsets=torch.tensor([0, 2, 5]),
                init=torch.zeros(1, 3))


def test_models_match_each_sequence_alone():
    """The three model functions over packed sequences, forward and every
    gradient, against each sequence alone; and through torch.ops."""
    rng = np.random.default_rng(14)
    u = lambda *shape: leaf(rng.uniform(-1, 1, shape))
    q, k, v = u(2, T, 4), u(2, T, 4), u(2, T, 3)
    beta = leaf(rng.uniform(0, 1, (2, T)))
    gate = leaf(rng.uniform(0.8, 1, (2, T)))
    h0 = u(2, S, 4, 3)
    x, dt = u(2, T, 3), leaf(rng.uniform(0.1, 0.5, (2, T, 3)))
    A = leaf(-rng.uniform(0.5, 1, (3, 4)))
    B, C, D, s0 = u(2, T, 4), u(2, T, 4), u(3), u(2, S, 4, 3)
    offsets = torch.tensor(OFFSETS, dtype=torch.int32)

    def models(part, s):
        """(outputs, final states) of the models on steps `part`, from the
        inits `s` (all sequences packed when `part` is None)."""
        packed = part is None
        part = slice(None) if packed else part
        bounds = dict(offsets=offsets) if packed else {}
        y = rt.linear_attention(q[:, part], k[:, part], v[:, part], **bounds)
        yd, last = rt.delta_rule(q[:, part], k[:, part], v[:, part],
                                 beta[:, part], gate=gate[:, part],
                                 init=h0[:, s], return_final_state=True,
                                 **bounds)
        ys, lasts = rt.selective_ssm(x[:, part], dt[:, part], A, B[:, part],
                                     C[:, part], D, init=s0[:, s],
                                     return_final_state=True, **bounds)
        return [y, yd, ys], [last, lasts]

    leaves = [q, k, v, beta, gate, h0, x, dt, A, B, C, D, s0]
    outs, lasts = models(None, slice(None))
    weights = [torch.tensor(rng.uniform(-1, 1, t.shape))
               for t in outs + lasts]
    loss = sum((t * w).sum() for t, w in zip(outs + lasts, weights))
    got = grads_of(loss, leaves)

    want = grads_of(loss_of_each_sequence_alone(models, outs, lasts,
                                                weights, [h0, s0]), leaves)
    for i, (g, w) in enumerate(zip(got, want)):
        torch.testing.assert_close(g, w, rtol=1e-10, atol=1e-10,
                                   msg=lambda m: f"leaf #{i}: {m}")

    y_op = torch.ops.recurrence.linear_attention(q, k, v, "elu1", True, 1e-8,
                                                 offsets)
    torch.testing.assert_close(y_op, outs[0], rtol=0, atol=0)


def test_bdlru_and_stateful_linear_attention_match_each_sequence_alone():
    """bdlru and linear attention with inits and final states over packed
    sequences, forward and the gradients of every leaf, against each
    sequence alone."""
    rng = np.random.default_rng(15)
    u = lambda *shape: leaf(rng.uniform(-1, 1, shape))
    raw, v, h0 = u(2, T, 3, 2, 3), u(2, T, 6), u(2, S, 6)
    q, k, lv, S0 = u(2, T, 4), u(2, T, 4), u(2, T, 3), u(2, S, 4, 3)
    c0 = leaf(rng.uniform(0.5, 1, (2, S, 4)))
    offsets = torch.tensor(OFFSETS, dtype=torch.int32)

    def models(part, s):
        packed = part is None
        part = slice(None) if packed else part
        bounds = dict(offsets=offsets) if packed else {}
        gates = rt.normalize_gates(raw[:, part])
        h, last = rt.bdlru(gates, v[:, part], init=h0[:, s],
                           return_final_state=True, **bounds)
        y, (S_T, c_T) = rt.linear_attention(
            q[:, part], k[:, part], lv[:, part], init=(S0[:, s], c0[:, s]),
            return_final_state=True, **bounds)
        return [h, y], [last, S_T, c_T]

    leaves = [raw, v, h0, q, k, lv, S0, c0]
    outs, lasts = models(None, slice(None))
    weights = [torch.tensor(rng.uniform(-1, 1, t.shape))
               for t in outs + lasts]
    loss = sum((t * w).sum() for t, w in zip(outs + lasts, weights))
    got = grads_of(loss, leaves)
    want = grads_of(loss_of_each_sequence_alone(models, outs, lasts, weights,
                                                [h0, S0, c0]), leaves)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, rtol=1e-10, atol=1e-12)

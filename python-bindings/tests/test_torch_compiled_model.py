"""recurrence.torch's model ops (selective_ssm, delta_rule,
linear_attention, hlru, bdlru) on CPU tensors run as the compiler's model
op, forward, and its derived gradient, backward. Their outputs are checked
against float64 loops over time written from the models' equations, and
their gradients against the composed forms (scans and torch ops, whose
second order test_torch.py's gradgradcheck checks),
over batch dims (none, several, 0), T = 1 and T not a multiple of the
chunk, with and without the optional operand (D, gate), init and the final
state, float64 and float32."""

import zlib

import numpy as np
import pytest
import torch

import recurrence
import recurrence.torch as rt

from test_models import delta_reference, phi


def ssm_loop(x, delta, A, B, C, D, init):
    """y and h_T of the selective SSM, float64, step by step."""
    batch, (T, dm), n = x.shape[:-2], x.shape[-2:], A.shape[-1]
    h = np.zeros(batch + (n, dm)) if init is None else init
    ys = []
    for t in range(T):
        a = np.exp(delta[..., t, None, :] * A.T)
        h = a * h + B[..., t, :, None] * (delta[..., t, :] * x[..., t, :])[
            ..., None, :]
        y = np.einsum("...n,...nd->...d", C[..., t, :], h)
        ys.append(y if D is None else y + D * x[..., t, :])
    return np.stack(ys, -2) if ys else np.zeros(x.shape), h


def ssm_operands(batch, T, dm, n, optional, with_init, rng):
    x = rng.standard_normal(batch + (T, dm))
    delta = rng.uniform(0.05, 0.5, batch + (T, dm))
    A = -rng.uniform(0.5, 1.5, (dm, n))
    B, C = (rng.standard_normal(batch + (T, n)) for _ in range(2))
    D = rng.standard_normal(dm) if optional else None
    init = rng.standard_normal(batch + (n, dm)) if with_init else None
    return [x, delta, A, B, C, D, init]


def delta_operands(batch, T, dk, dv, optional, with_init, rng):
    q = rng.standard_normal(batch + (T, dk))
    k = rng.standard_normal(batch + (T, dk))
    k /= np.linalg.norm(k, axis=-1, keepdims=True)
    v = rng.standard_normal(batch + (T, dv))
    beta = rng.uniform(0.1, 0.9, batch + (T,))
    gate = rng.uniform(0.5, 1.0, batch + (T,)) if optional else None
    init = rng.standard_normal(batch + (dk, dv)) if with_init else None
    return [q, k, v, beta, gate, init]


def delta_loop(q, k, v, beta, gate, init):
    y, S = delta_reference(q, k, v, beta, gate, init)
    return (y, S) if q.shape[-2] else (np.zeros(v.shape), S)


def attention_operands(normalize):
    def operands(batch, T, dk, dv, optional, with_init, rng):
        q, k = (rng.standard_normal(batch + (T, dk)) for _ in range(2))
        v = rng.standard_normal(batch + (T, dv))
        S0 = rng.standard_normal(batch + (dk, dv)) if with_init else None
        c0 = rng.uniform(0.5, 1.5, batch + (dk,)) if with_init else None
        return [q, k, v, S0] + ([c0] if normalize else [])
    return operands


def attention_loop(normalize):
    """y and the state of linear attention, float64, step by step (elu+1
    normalized, else the identity feature map)."""
    def loop(q, k, v, S0, c0=None):
        f = phi if normalize else (lambda x: x)
        batch, (T, dk), dv = q.shape[:-2], q.shape[-2:], v.shape[-1]
        S = np.zeros(batch + (dk, dv)) if S0 is None else S0
        c = np.zeros(batch + (dk,)) if c0 is None else c0
        ys = []
        for t in range(T):
            fq, fk = f(q[..., t, :]), f(k[..., t, :])
            S = S + fk[..., :, None] * v[..., t, None, :]
            c = c + fk
            y = np.einsum("...k,...kd->...d", fq, S)
            if normalize:
                y = y / np.maximum(np.einsum("...k,...k->...", fq, c),
                                   1e-8)[..., None]
            ys.append(y)
        y = np.stack(ys, -2) if ys else np.zeros(v.shape)
        return (y, S, c) if normalize else (y, S)
    return loop


def hlru_operands(batch, T, n, m, optional, with_init, rng):
    gates = rng.uniform(0, 1 / (m + 1), batch + (T, n, m + 1))
    v = rng.standard_normal(batch + (T, n))
    init = rng.standard_normal(batch + (m, n)) if with_init else None
    return [gates, v, init]


def hlru_loop(gates, v, init):
    """h and the m newest states (newest first), float64."""
    m = gates.shape[-1] - 1
    past = ([init[..., i, :] for i in range(m)] if init is not None else
            [np.zeros(v.shape[:-2] + v.shape[-1:])] * m)  # newest first
    hs = []
    for t in range(v.shape[-2]):
        h = gates[..., t, :, m] * v[..., t, :] + sum(
            gates[..., t, :, i] * past[i] for i in range(m))
        past = [h] + past[:-1]
        hs.append(h)
    return (np.stack(hs, -2) if hs else np.zeros(v.shape),
            np.stack(past, -2))


def bdlru_operands(batch, T, heads, m, optional, with_init, rng):
    gates = rng.uniform(-0.9 / m, 0.9 / m, batch + (T, heads, m, m + 1))
    v = rng.standard_normal(batch + (T, heads * m))
    init = rng.standard_normal(batch + (heads * m,)) if with_init else None
    return [gates, v, init]


def bdlru_loop(gates, v, init):
    """h and h_T, float64: each block row's m gates on the block's state,
    then its input gate on v."""
    heads, m = gates.shape[-3:-1]
    shape = v.shape[:-2] + (heads, m)
    h = np.zeros(shape) if init is None else init.reshape(shape)
    hs = []
    for t in range(v.shape[-2]):
        h = np.einsum("...hij,...hj->...hi", gates[..., t, :, :, :m], h) + \
            gates[..., t, :, :, m] * v[..., t, :].reshape(shape)
        hs.append(h.reshape(v.shape[:-2] + (heads * m,)))
    return (np.stack(hs, -2) if hs else np.zeros(v.shape),
            h.reshape(v.shape[:-2] + (heads * m,)))


def flat(out):
    """A model's outputs as a flat tuple: y, then each state's."""
    return rt._flat_outputs(out)


def attention(normalize):
    """(op, composed form) of linear attention, normalized with elu+1 or
    not with the identity, on [q, k, v, S0(, c0)]."""
    options = (dict(feature_map="elu1", normalize=True) if normalize else
               dict(feature_map="identity", normalize=False))

    def op(o, **kw):
        init = (None if o[3] is None else tuple(o[3:]) if normalize
                else o[3])
        return flat(rt.linear_attention(*o[:3], init=init, **options, **kw))

    def composed(*o, **kw):
        return flat(rt._composed_linear_attention(
            *o[:4], o[4] if normalize else None, eps=1e-8, **options, **kw))
    return op, composed


# name: (operands, loop, the op on the named operands, the composed form,
# the number of trailing init operands)
MODELS = {
    "selective_ssm": (ssm_operands, ssm_loop,
                      lambda o, **kw: flat(rt.selective_ssm(
                          *o[:6], init=o[6], **kw)),
                      lambda *o, **kw: flat(rt._composed_selective_ssm(
                          *o, **kw)), 1),
    "delta_rule": (delta_operands, delta_loop,
                   lambda o, **kw: flat(rt.delta_rule(
                       *o[:4], gate=o[4], init=o[5], **kw)),
                   lambda *o, **kw: flat(rt._composed_delta_rule(*o, **kw)),
                   1),
    "linear_attention": (attention_operands(True), attention_loop(True),
                         *attention(True), 2),
    "linear_attention_unnormalized": (
        attention_operands(False), attention_loop(False), *attention(False),
        1),
    "hlru": (hlru_operands, hlru_loop,
             lambda o, offsets=None, **kw: flat(rt.hlru(*o[:2], init=o[2],
                                                        **kw)),
             lambda *o, offsets=None, **kw: flat(rt._composed_hlru(
                 *o, offsets=offsets, **kw)), 1),
    "bdlru": (bdlru_operands, bdlru_loop,
              lambda o, **kw: flat(rt.bdlru(*o[:2], init=o[2], **kw)),
              lambda *o, **kw: flat(rt._composed_bdlru(*o, **kw)), 1),
}

CASES = [
    # batch dims, T, two sizes, optional operand, init, final state,
    # schedule
    ((2,), 7, 5, 3, True, True, True, "auto"),
    ((), 1, 4, 2, False, False, False, "sequential"),
    ((2, 3), 37, 3, 4, True, False, True, ("chunked", 8)),
    ((0,), 5, 3, 2, True, True, True, "auto"),
    ((1,), 9, 6, 1, False, True, False, ("chunked", 4)),
]


def tensors(model, case, dtype):
    rng = np.random.default_rng(zlib.crc32(str((model, case)).encode()))
    values = MODELS[model][0](*case[:6], rng)
    return [None if v is None else
            torch.tensor(v, dtype=dtype, requires_grad=True) for v in values]


def schedule_of(schedule):
    if isinstance(schedule, tuple):
        return dict(schedule=schedule[0], chunk_size=schedule[1])
    return dict(schedule=schedule, chunk_size=None)


def run(model, named, final, schedule, composed=False):
    """The model's outputs, flat: y, then each state's when `final`."""
    _, _, op, composed_op = MODELS[model][:4]
    kwargs = dict(return_final_state=final, **schedule_of(schedule))
    return (composed_op(*named, offsets=None, **kwargs) if composed
            else op(named, **kwargs))


# Every case in float64; float32 for the first models on every case and
# for the others on the first (each variant is a compile of its own).
# Channels past a warp's 32 and states dividing it: on the GPU, the
# selective SSM's forward scan runs a lane per state (the second with lanes
# past its 105 x 16 that fill the last warp), and its dB and dC (sums over
# the channels) are summed across a warp's lanes. The delta rule's dplr
# scan runs likewise: a lane per state where dk divides a warp, and where
# dk = 64 a warp per column, each lane holding two states (DELTA_WIDE),
# forward and in its gradient's two scans.
WIDE = [((2,), 19, 40, 8, True, True, True, "auto"),
        ((3,), 33, 35, 16, False, False, False, "sequential")]
DELTA_WIDE = [((2,), 21, 64, 5, True, True, True, "auto"),
              ((3,), 17, 8, 6, False, True, False, "sequential")]
MATRIX = [(model, dtype, case) for model in MODELS
          for dtype in (torch.float64, torch.float32) for case in CASES
          if dtype == torch.float64 or case == CASES[0] or
          model in ("selective_ssm", "delta_rule")] + [
    (model, dtype, case) for model in ("selective_ssm", "delta_rule")
    for dtype in (torch.float64, torch.float32) for case in WIDE] + [
    ("delta_rule", dtype, case)
    for dtype in (torch.float64, torch.float32) for case in DELTA_WIDE]


@pytest.mark.parametrize("model,dtype,case", MATRIX, ids=str)
def test_compiled_model_matches_loop_and_composed_gradients(model, dtype,
                                                             case):
    named = tensors(model, case, dtype)
    final, schedule = case[6:]
    outs = run(model, named, final, schedule)
    assert type(outs[0].grad_fn).__name__ == "_CompiledModelBackward"
    loops = MODELS[model][1](*(None if v is None else
                               v.detach().double().numpy() for v in named))
    # float32: the state's rounding over T steps, relative to the values.
    tol = 1e-12 if dtype == torch.float64 else 2e-6
    for got, want in zip(outs, loops):
        scale = max(1.0, float(np.abs(want).max(initial=0)))
        np.testing.assert_allclose(got.detach().numpy(), want, rtol=tol,
                                   atol=tol * scale)
    rng = np.random.default_rng(5)
    weights = [torch.tensor(rng.uniform(-1, 1, o.shape), dtype=dtype)
               for o in outs]
    leaves = [v for v in named if v is not None]
    loss = lambda outs: sum((o * w).sum() for o, w in zip(outs, weights))
    got = torch.autograd.grad(loss(outs), leaves)
    want = torch.autograd.grad(
        loss(run(model, named, final, schedule, composed=True)), leaves)
    for i, (g, w) in enumerate(zip(got, want)):
        scale = max(1.0, float(w.abs().max())) if w.numel() else 1.0
        torch.testing.assert_close(g, w, rtol=tol, atol=tol * scale,
                                   msg=lambda m: f"operand #{i}: {m}")


@pytest.mark.parametrize("model,packed", [
    (model, packed) for model in MODELS for packed in (True, False)
    if not (packed and model == "hlru")])  # (hlru has no packed form)
def test_packed_sequences_and_double_backward(model, packed):
    """Offsets go to the model op; a backward under create_graph goes
    through the composed form, so the second order is its own, packed
    sequences' too."""
    rng = np.random.default_rng(9)
    named = MODELS[model][0]((2,), 9, 3, 2, True, True, rng)
    offsets = torch.tensor([0, 4, 4, 9]) if packed else None
    if packed:  # one init per sequence
        inits = MODELS[model][4]
        named[-inits:] = [np.stack([x] * 3, 1) for x in named[-inits:]]
    named = [torch.tensor(v, requires_grad=True) for v in named]

    def grads(composed, order):
        _, _, op, composed_op = MODELS[model][:4]
        kwargs = dict(return_final_state=True, schedule="auto",
                      chunk_size=None, offsets=offsets)
        outs = (composed_op(*named, **kwargs) if composed
                else op(named, **kwargs))
        assert composed or (type(outs[0].grad_fn).__name__ ==
                            "_CompiledModelBackward")
        first = torch.autograd.grad(sum((o * o).sum() for o in outs),
                                    named, create_graph=order > 1)
        if order == 1:
            return first
        return first + torch.autograd.grad(sum((g * g).sum() for g in first),
                                           named)

    for got, want in zip(grads(False, 1), grads(True, 1)):
        torch.testing.assert_close(got, want, rtol=1e-10, atol=1e-12)
    for got, want in zip(grads(False, 2), grads(True, 2)):
        torch.testing.assert_close(got, want, rtol=1e-10, atol=1e-12)


NUMPY_GRADIENTS = [
    ("selective_ssm", recurrence.selective_ssm_gradient, ["init"]),
    ("delta_rule", recurrence.delta_rule_gradient, ["gate", "init"]),
    ("hlru", recurrence.hlru_gradient, ["init"]),
    ("bdlru", recurrence.bdlru_gradient, ["init"]),
    ("linear_attention", recurrence.linear_attention_gradient, ["init"]),
]


@pytest.mark.parametrize("model,gradient,keywords", NUMPY_GRADIENTS,
                         ids=[g[0] for g in NUMPY_GRADIENTS])
def test_numpy_gradients_of_the_model_ops(model, gradient, keywords):
    """recurrence.<model>_gradient: the model ops' derived gradients,
    against the torch composed forms'."""
    case = ((3,), 11, 4, 3, True, True, True, "auto")
    named = tensors(model, case, torch.float64)
    outs = run(model, named, True, "auto", composed=True)
    rng = np.random.default_rng(4)
    bars = [rng.uniform(-1, 1, o.shape) for o in outs]
    want = torch.autograd.grad(outs, named, [torch.tensor(b) for b in bars])
    arrays = [v.detach().numpy() for v in named]
    split = len(arrays) - len(keywords)
    if model == "linear_attention":  # init and the final state are pairs
        split, arrays = 3, arrays[:3] + [tuple(arrays[3:])]
        bars = bars[:1] + [tuple(bars[1:])]
    got = gradient(*arrays[:split], **dict(zip(keywords, arrays[split:])),
                   y_bar=bars[0], final_state_bar=bars[1])
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="y_bar: expected shape"):
        gradient(*arrays[:split], y_bar=bars[0][:, 1:])
    if model == "linear_attention":
        with pytest.raises(TypeError, match="final_state_bar: expected"):
            gradient(*arrays[:split], y_bar=bars[0],
                     final_state_bar=bars[1][0])


def test_parameters_and_inference():
    """Module parameters (Mamba's A, D) take the compiled path too, and so
    does a call that needs no gradient."""
    case = ((2,), 6, 3, 2, True, False, False, "auto")
    named = tensors("selective_ssm", case, torch.float64)
    named[2] = torch.nn.Parameter(named[2].detach())
    named[5] = torch.nn.Parameter(named[5].detach())
    (y,) = run("selective_ssm", named, False, "auto")
    assert type(y.grad_fn).__name__ == "_CompiledModelBackward"
    with torch.no_grad():
        (y0,) = run("selective_ssm", named, False, "auto")
    want, _ = ssm_loop(*(None if v is None else v.detach().numpy()
                         for v in named))
    for got in (y, y0):
        np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-12,
                                   atol=1e-12)


def test_an_operand_passed_twice():
    """B and C the same tensor: its gradient sums both uses, at first and
    at second order (where the composed form differentiates each use)."""
    case = ((2,), 6, 3, 2, False, False, False, "auto")
    named = tensors("selective_ssm", case, torch.float64)
    named[4] = named[3]  # C is B
    leaves = [v for v in named[:4]]

    def grads(composed):
        (y,) = run("selective_ssm", named, False, "auto", composed=composed)
        first = torch.autograd.grad((y * y).sum(), leaves, create_graph=True)
        return first + torch.autograd.grad(sum((g * g).sum() for g in first),
                                           leaves)

    for got, want in zip(grads(False), grads(True)):
        torch.testing.assert_close(got, want, rtol=1e-10, atol=1e-12)


def test_cuda_tensors_run_compiled_unless_told(monkeypatch):
    """Model functions on CUDA tensors run compiled by default (the GPU
    checks, scripts/gpu-check.sh's models section, run both ways);
    RECURRENCE_CUDA_MODELS=0 composes them."""
    monkeypatch.delenv("RECURRENCE_CUDA_MODELS", raising=False)
    assert rt._cuda_models()
    monkeypatch.setenv("RECURRENCE_CUDA_MODELS", "1")
    assert rt._cuda_models()
    monkeypatch.setenv("RECURRENCE_CUDA_MODELS", "0")
    assert not rt._cuda_models()

"""Decode steps of the model ops: the models' states in and out, checked
against float64 references of the papers' equations, and a prefix decoded
token by token (the state advancing in place) against the whole-sequence op
to 1e-12 in float64, from NumPy and (differentiably) from torch."""

import numpy as np
import pytest
import recurrence as rec

BATCH, T = (2, 3), 7
SCHEDULES = [("auto", None), ("sequential", None), ("chunked", 3),
             ("scan", None)]


def phi(x):
    return np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))


def close(got, want, tol=1e-12):
    assert np.shape(got) == np.shape(want)
    if np.size(want) == 0:
        return
    scale = 1 + np.max(np.abs(want))
    assert np.max(np.abs(np.asarray(got) - want)) <= tol * scale


def at(x, t):
    """Step t of [..., T, ...] with the batch dims of BATCH."""
    return x[(slice(None),) * len(BATCH) + (t,)]


# Each model: (whole-sequence call on (operands, state), per-step operands
# of step t, step call, initial state). The operands are seeded per model.
def la_case(rng, normalize):
    dk, dv = 4, 3
    q, k = rng.standard_normal(BATCH + (T, dk)), rng.standard_normal(
        BATCH + (T, dk))
    v = rng.standard_normal(BATCH + (T, dv))
    S0 = rng.standard_normal(BATCH + (dk, dv))
    c0 = rng.uniform(0.5, 1, BATCH + (dk,))
    state = (S0, c0) if normalize else S0
    whole = lambda init, **o: rec.linear_attention(
        q, k, v, normalize=normalize, init=init, return_final_state=True,
        **o)
    step = lambda t, s, **o: rec.linear_attention_step(
        at(q, t), at(k, t), at(v, t), s, normalize=normalize, **o)
    return whole, step, state, (q, k, v)


def delta_case(rng, gated):
    dk, dv = 4, 3
    q, k = rng.standard_normal(BATCH + (T, dk)), rng.standard_normal(
        BATCH + (T, dk))
    k /= np.linalg.norm(k, axis=-1, keepdims=True)
    v = rng.standard_normal(BATCH + (T, dv))
    beta = rng.uniform(0, 1, BATCH + (T,))
    gate = rng.uniform(0.5, 1, BATCH + (T,)) if gated else None
    whole = lambda init, **o: rec.delta_rule(
        q, k, v, beta, gate=gate, init=init, return_final_state=True, **o)
    step = lambda t, s, **o: rec.delta_rule_step(
        at(q, t), at(k, t), at(v, t), at(beta, t), s,
        gate=None if gate is None else at(gate, t), **o)
    return whole, step, rng.standard_normal(BATCH + (dk, dv))


def ssm_case(rng):
    Dm, N = 5, 3
    x = rng.standard_normal(BATCH + (T, Dm))
    delta = rng.uniform(0, 1, BATCH + (T, Dm))
    A, D = -rng.uniform(0, 1, (Dm, N)), rng.standard_normal(Dm)
    B, C = rng.standard_normal(BATCH + (T, N)), rng.standard_normal(
        BATCH + (T, N))
    whole = lambda init, **o: rec.selective_ssm(
        x, delta, A, B, C, D, init=init, return_final_state=True, **o)
    step = lambda t, s, **o: rec.selective_ssm_step(
        at(x, t), at(delta, t), A, at(B, t), at(C, t), s, D, **o)
    return whole, step, rng.standard_normal(BATCH + (N, Dm))


def hlru_case(rng):
    N, m = 4, 3
    gates = rec.normalize_gates(rng.standard_normal(BATCH + (T, N, m + 1)))
    v = rng.standard_normal(BATCH + (T, N))
    whole = lambda init, **o: rec.hlru(gates, v, init=init,
                                       return_final_state=True, **o)
    step = lambda t, s, **o: rec.hlru_step(at(gates, t), at(v, t), s, **o)
    return whole, step, rng.standard_normal(BATCH + (m, N)), (gates, v)


def bdlru_case(rng):
    H, m = 3, 2
    gates = rec.normalize_gates(rng.standard_normal(BATCH + (T, H, m, m + 1)))
    v = rng.standard_normal(BATCH + (T, H * m))
    whole = lambda init, **o: rec.bdlru(gates, v, init=init,
                                        return_final_state=True, **o)
    step = lambda t, s, **o: rec.bdlru_step(at(gates, t), at(v, t), s, **o)
    return whole, step, rng.standard_normal(BATCH + (H * m,)), (gates, v)


CASES = {
    "linear_attention": lambda rng: la_case(rng, True)[:3],
    "linear_attention_unnormalized": lambda rng: la_case(rng, False)[:3],
    "delta_rule": lambda rng: delta_case(rng, False),
    "gated_delta_rule": lambda rng: delta_case(rng, True),
    "selective_ssm": ssm_case,
    "hlru": lambda rng: hlru_case(rng)[:3],
    "bdlru": lambda rng: bdlru_case(rng)[:3],
}


def copy_state(state):
    return tuple(x.copy() for x in state) if isinstance(state, tuple) \
        else state.copy()


def states(state):
    return state if isinstance(state, tuple) else (state,)


@pytest.fixture(params=["strided", "contiguous"])
def layout(request, monkeypatch):
    """The steps' operands as views of the sequences (strided: the checked
    call every time) or as contiguous arrays (after the first step, the
    decode plan: the compiled op called directly)."""
    if request.param == "contiguous":
        strided = at
        monkeypatch.setitem(globals(), "at", lambda x, t: np.ascontiguousarray(
            strided(x, t)))
        monkeypatch.setattr(rec.models, "_decode_plans", {})
    return request.param


def check_plans(layout):
    """Contiguous steps made plans that view their inputs."""
    plans = list(rec.models._decode_plans.values())
    if layout == "contiguous":
        assert plans and all(plan is not None for plan in plans)


@pytest.mark.parametrize("model", sorted(CASES))
def test_decoding_in_place_equals_the_whole_sequence(model, layout):
    rng = np.random.default_rng(sum(map(ord, model)))
    whole, step, state0 = CASES[model](rng)
    want, want_last = whole(state0)
    state = copy_state(state0)
    y = np.empty(at(want, 0).shape)
    for t in range(T):
        y.fill(np.nan)
        got, new = step(t, state, out=y, state_out=state)
        # The state advanced in place, and y was written into out.
        assert all(a is b for a, b in zip(states(new), states(state)))
        close(y, at(want, t))
    for got, wanted in zip(states(state), states(want_last)):
        close(got, wanted)
    check_plans(layout)


@pytest.mark.parametrize("model", sorted(CASES))
def test_decoding_into_new_arrays_leaves_the_state(model, layout):
    rng = np.random.default_rng(1 + sum(map(ord, model)))
    whole, step, state0 = CASES[model](rng)
    want, want_last = whole(state0)
    state, kept = state0, copy_state(state0)
    for t in range(T):
        got, state = step(t, state)
        close(got, at(want, t))
    for got, wanted in zip(states(state), states(want_last)):
        close(got, wanted)
    for got, wanted in zip(states(state0), states(kept)):
        np.testing.assert_array_equal(got, wanted)
    check_plans(layout)


def test_a_plan_is_not_made_from_one_array_passed_twice(monkeypatch):
    # A first call with q and k the same array could not tell which
    # argument came from which: no plan, so the next call with different
    # arrays of the same layout is still right.
    monkeypatch.setattr(rec.models, "_decode_plans", {})
    rng = np.random.default_rng(6)
    x, q, k, v = (rng.standard_normal((2, 4)) for _ in range(4))
    S = rng.standard_normal((2, 4, 4))
    rec.linear_attention_step(x, x, v, S, normalize=False,
                              feature_map="identity")
    y, _ = rec.linear_attention_step(q, k, v, S, normalize=False,
                                     feature_map="identity")
    close(y, np.einsum("bn,bnd->bd", q, S + k[:, :, None] * v[:, None, :]))
    # That second call made the plan, and the plan tells q from k.
    [(_, sources, _, _)] = rec.models._decode_plans.values()
    assert [i for i, _ in sources] == [0, 1, 2, 3]
    y, _ = rec.linear_attention_step(k, q, v, S, normalize=False,
                                     feature_map="identity")
    close(y, np.einsum("bn,bnd->bd", k, S + q[:, :, None] * v[:, None, :]))


def test_planned_steps_check_their_outs():
    # The second call of a layout takes the plan; an out that overlaps the
    # state, or the wrong out dtype, is still refused.
    rng = np.random.default_rng(5)
    q, k, v = (rng.standard_normal((2, 4)) for _ in range(3))
    S = rng.standard_normal((2, 4, 4))
    y = np.empty((2, 4))
    for _ in range(2):
        rec.linear_attention_step(q, k, v, S, normalize=False, out=y,
                                  state_out=S)
    buffer = np.empty(36)
    state, overlapping = buffer[:32].reshape(2, 4, 4), buffer[28:].reshape(
        2, 4)
    state[...] = S
    with pytest.raises(ValueError, match="overlap"):
        rec.linear_attention_step(q, k, v, state, normalize=False,
                                  out=overlapping, state_out=state)
    # A normalized state's two outs must not overlap either.
    S2, c2 = rng.standard_normal((2, 4, 4)), rng.standard_normal((2, 4))
    for _ in range(2):
        rec.linear_attention_step(q, k, v, (S2, c2), out=y,
                                  state_out=(S2, c2))
    with pytest.raises(ValueError, match="overlap"):
        rec.linear_attention_step(q, k, v, (S2, c2), out=y,
                                  state_out=(S2, S2.reshape(-1)[:8].reshape(
                                      2, 4)))
    with pytest.raises(TypeError, match="out: expected dtype float64"):
        rec.linear_attention_step(q, k, v, S, normalize=False,
                                  out=np.empty((2, 4), np.float32),
                                  state_out=S)


@pytest.mark.parametrize("schedule,chunk", SCHEDULES)
@pytest.mark.parametrize("normalize", [True, False])
def test_linear_attention_states(normalize, schedule, chunk):
    rng = np.random.default_rng(7)
    whole, _, state0, (q, k, v) = la_case(rng, normalize)
    y, last = whole(state0, schedule=schedule, chunk_size=chunk)
    S0, c0 = state0 if normalize else (state0, None)
    fq, fk = phi(q), phi(k)
    # S_t = S_0 + sum_{s <= t} phi(k_s) v_s^T, c_t = c_0 + sum phi(k_s).
    S = S0[..., None, :, :] + np.cumsum(
        fk[..., :, None] * v[..., None, :], axis=-3)
    num = np.einsum("...tn,...tnd->...td", fq, S)
    if normalize:
        c = c0[..., None, :] + np.cumsum(fk, axis=-2)
        den = np.maximum(np.einsum("...tn,...tn->...t", fq, c), 1e-8)
        close(y, num / den[..., None], 1e-10)
        close(last[0], S[..., -1, :, :], 1e-10)
        close(last[1], c[..., -1, :], 1e-10)
    else:
        close(y, num, 1e-10)
        close(last, S[..., -1, :, :], 1e-10)


@pytest.mark.parametrize("schedule,chunk", SCHEDULES)
def test_hlru_and_bdlru_final_states(schedule, chunk):
    rng = np.random.default_rng(8)
    whole, _, init, (gates, v) = hlru_case(rng)
    h, last = whole(init, schedule=schedule, chunk_size=chunk)
    m = init.shape[-2]
    hist = [init[..., i, :] for i in range(m)]  # newest first
    for t in range(T):
        new = sum(at(gates, t)[..., i] * hist[i] for i in range(m)) + \
            at(gates, t)[..., m] * at(v, t)
        hist = [new] + hist[:-1]
    close(h[..., -1, :], hist[0], 1e-10)
    close(last, np.stack(hist, axis=-2), 1e-10)

    whole, _, init, (gates, v) = bdlru_case(rng)
    h, last = whole(init, schedule=schedule, chunk_size=chunk)
    H, m = gates.shape[-3], gates.shape[-2]
    state = init
    for t in range(T):
        g = at(gates, t)
        blocks = state.reshape(BATCH + (H, m))
        state = np.einsum("...gij,...gj->...gi", g[..., :m],
                          blocks).reshape(state.shape) + \
            g[..., m].reshape(state.shape) * at(v, t)
    close(last, state, 1e-10)
    close(h[..., -1, :], state, 1e-10)


def test_packed_linear_attention_with_init_per_sequence():
    rng = np.random.default_rng(9)
    lengths = [0, 1, 4, 2]
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    steps, dk, dv, S = int(offsets[-1]), 3, 2, len(lengths)
    q, k = rng.standard_normal((2, steps, dk)), rng.standard_normal(
        (2, steps, dk))
    v = rng.standard_normal((2, steps, dv))
    S0 = rng.standard_normal((2, S, dk, dv))
    c0 = rng.uniform(0.5, 1, (2, S, dk))
    y, (S_T, c_T) = rec.linear_attention(q, k, v, init=(S0, c0),
                                         return_final_state=True,
                                         offsets=offsets)
    for s in range(S):
        lo, hi = offsets[s], offsets[s + 1]
        want, (wS, wc) = rec.linear_attention(
            q[:, lo:hi], k[:, lo:hi], v[:, lo:hi], init=(S0[:, s], c0[:, s]),
            return_final_state=True)
        close(y[:, lo:hi], want)
        close(S_T[:, s], wS)
        close(c_T[:, s], wc)


def test_state_errors():
    rng = np.random.default_rng(10)
    q = rng.standard_normal((2, 5, 4))
    v = rng.standard_normal((2, 5, 3))
    S0, c0 = np.zeros((2, 4, 3)), np.zeros((2, 4))
    with pytest.raises(TypeError, match=r"init: expected a pair \(S, c\)"):
        rec.linear_attention(q, q, v, init=S0)
    with pytest.raises(TypeError, match="init: expected S, one array"):
        rec.linear_attention(q, q, v, normalize=False, init=(S0, c0))
    with pytest.raises(ValueError, match="normalizer init: expected shape "
                       r"\(2, 4\)"):
        rec.linear_attention(q, q, v, init=(S0, np.zeros((2, 3))))
    with pytest.raises(ValueError, match="final_state_out: needs "
                       "return_final_state=True"):
        rec.linear_attention(q, q, v, final_state_out=(S0, c0))
    with pytest.raises(ValueError, match=r"final_state_out\[1\]: must not "
                       "overlap"):
        rec.linear_attention(q, q, v, return_final_state=True,
                             final_state_out=(S0, S0[..., 0]))
    with pytest.raises(ValueError, match="init: expected shape"):
        rec.hlru_step(rng.standard_normal((2, 4, 3)),
                      rng.standard_normal((2, 4)), np.zeros((2, 4)))
    with pytest.raises(ValueError, match="v: expected"):
        rec.bdlru_step(rng.standard_normal((2, 3, 2, 3)),
                       rng.standard_normal((2, 5)), np.zeros((2, 6)))
    with pytest.raises(ValueError, match="q: expected"):
        rec.linear_attention_step(np.float64(1.0), q[:, 0], v[:, 0],
                                  (S0, c0))


#===------------------------------------------------------------------------===#
# torch: the same steps, differentiable
#===------------------------------------------------------------------------===#

torch = pytest.importorskip("torch")
import recurrence.torch as rt  # noqa: E402

TORCH_MODELS = ["linear_attention", "gated_delta_rule", "selective_ssm",
                "hlru", "bdlru"]


def torch_cases(rng, dtype=None, device="cpu"):
    """(whole call on state, step call on (t, state), initial state) per
    model, batch (2,) and T steps, on leaf tensors of `dtype` (float64)
    on `device` (bench/gpu_check.py runs them on CUDA)."""
    def tensors(*shapes, low=-1.0, high=1.0):
        return [torch.tensor(rng.uniform(low, high, s),
                             dtype=dtype or torch.float64, device=device,
                             requires_grad=True) for s in shapes]
    b, dk, dv, N, m, H = 2, 3, 2, 3, 2, 2
    q, k, v = tensors((b, T, dk), (b, T, dk), (b, T, dv))
    S0, c0 = tensors((b, dk, dv), (b, dk), low=0.5)
    beta, gate = tensors((b, T), (b, T), low=0.1)
    x, delta = tensors((b, T, dv), (b, T, dv), low=0.1)
    A, D, Bm, C = tensors((dv, N), (dv,), (b, T, N), (b, T, N))
    h0 = tensors((b, N, dv))[0]
    hg = rt.normalize_gates(tensors((b, T, N, m + 1))[0])
    hv, hh0 = tensors((b, T, N), (b, m, N))
    bg = rt.normalize_gates(tensors((b, T, H, m, m + 1))[0])
    bv, bh0 = tensors((b, T, H * m), (b, H * m))
    return {
        "linear_attention": (
            lambda s: rt.linear_attention(q, k, v, init=s,
                                          return_final_state=True),
            lambda t, s: rt.linear_attention_step(q[:, t], k[:, t], v[:, t],
                                                  s),
            (S0, c0)),
        "gated_delta_rule": (
            lambda s: rt.delta_rule(q, k, v, beta, gate=gate, init=s,
                                    return_final_state=True),
            lambda t, s: rt.delta_rule_step(q[:, t], k[:, t], v[:, t],
                                            beta[:, t], s, gate=gate[:, t]),
            S0),
        "selective_ssm": (
            lambda s: rt.selective_ssm(x, delta, -A, Bm, C, D, init=s,
                                       return_final_state=True),
            lambda t, s: rt.selective_ssm_step(x[:, t], delta[:, t], -A,
                                               Bm[:, t], C[:, t], s, D),
            h0),
        "hlru": (
            lambda s: rt.hlru(hg, hv, init=s, return_final_state=True),
            lambda t, s: rt.hlru_step(hg[:, t], hv[:, t], s), hh0),
        "bdlru": (
            lambda s: rt.bdlru(bg, bv, init=s, return_final_state=True),
            lambda t, s: rt.bdlru_step(bg[:, t], bv[:, t], s), bh0),
    }


@pytest.mark.parametrize("model", TORCH_MODELS)
def test_torch_decoding_and_its_gradients_equal_the_whole_sequence(model):
    rng = np.random.default_rng(sum(map(ord, model)))
    whole, step, state0 = torch_cases(rng)[model]
    want, want_last = whole(state0)
    state, ys = state0, []
    for t in range(T):
        y, state = step(t, state)
        ys.append(y)
    got = torch.stack(ys, 1)
    close(got.detach().numpy(), want.detach().numpy())
    for a, b in zip(states(state), states(want_last)):
        close(a.detach().numpy(), b.detach().numpy())
    # The same loss through both: every leaf gets the same gradient.
    w = torch.tensor(rng.standard_normal(tuple(want.shape)))
    leaves = [x for x in states(state0)]
    loss = lambda y, last: (y * w).sum() + sum(
        (s * s).sum() for s in states(last))
    g_step = torch.autograd.grad(loss(got, state), leaves)
    g_whole = torch.autograd.grad(loss(want, want_last), leaves)
    for a, b in zip(g_step, g_whole):
        close(a.numpy(), b.numpy())


def test_torch_step_gradcheck():
    rng = np.random.default_rng(11)
    tensors = lambda *shapes, low=-1.0: [
        torch.tensor(rng.uniform(low, 1, s), dtype=torch.float64,
                     requires_grad=True) for s in shapes]
    q, k, v = tensors((2, 3), (2, 3), (2, 2))
    S0, c0 = tensors((2, 3, 2), (2, 3), low=0.5)
    def la_step(q, k, v, S, c):
        y, (S, c) = rt.linear_attention_step(q, k, v, (S, c))
        return y, S, c
    assert torch.autograd.gradcheck(la_step, (q, k, v, S0, c0))
    g, hv, h0 = tensors((2, 3, 3), (2, 3), (2, 2, 3))
    assert torch.autograd.gradcheck(rt.hlru_step, (g, hv, h0))

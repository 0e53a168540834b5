"""The model-level functions against float64 references of their papers'
equations."""

import numpy as np
import pytest
import recurrence as rec


def phi(x):
    return np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))


# Every schedule of the core scan; chunks of 4 divide none of the T here.
SCHEDULES = [("auto", None), ("sequential", None), ("chunked", 4),
             ("scan", None)]


@pytest.mark.parametrize("schedule,chunk", SCHEDULES)
def test_linear_attention_equals_the_parallel_form(schedule, chunk):
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((2, 3, 9, 4)), rng.standard_normal((2, 3, 9, 4))
    v = rng.standard_normal((2, 3, 9, 5))
    # Parallel form: masked lower-triangular phi(Q) phi(K)^T V.
    scores = np.einsum("...tk,...sk->...ts", phi(q), phi(k))
    mask = np.tril(np.ones((9, 9)))
    num = np.einsum("...ts,...sd->...td", scores * mask, v)
    den = np.maximum((scores * mask).sum(-1), 1e-8)
    y = rec.linear_attention(q, k, v, schedule=schedule, chunk_size=chunk)
    np.testing.assert_allclose(y, num / den[..., None], rtol=1e-12)
    raw = rec.linear_attention(q, k, v, normalize=False)
    np.testing.assert_allclose(raw, num, rtol=1e-12)


def delta_reference(q, k, v, beta, gate, init):
    S = np.zeros(q.shape[:-2] + (q.shape[-1], v.shape[-1])) if init is None \
        else init.copy()
    ys = []
    for t in range(q.shape[-2]):
        g = 1.0 if gate is None else gate[..., t, None, None]
        kt, vt, bt = k[..., t, :], v[..., t, :], beta[..., t, None]
        pred = np.einsum("...n,...nd->...d", kt, g * S)
        S = g * S + np.einsum("...n,...d->...nd", bt * kt, vt - pred)
        ys.append(np.einsum("...nd,...n->...d", S, q[..., t, :]))
    return np.stack(ys, axis=-2), S


@pytest.mark.parametrize("schedule,chunk", SCHEDULES)
@pytest.mark.parametrize("gated", [False, True])
@pytest.mark.parametrize("with_init", [False, True])
def test_delta_rule(gated, with_init, schedule, chunk):
    rng = np.random.default_rng(1)
    q = rng.standard_normal((2, 7, 4))
    k = rng.standard_normal((2, 7, 4))
    k /= np.linalg.norm(k, axis=-1, keepdims=True)
    v = rng.standard_normal((2, 7, 3))
    beta = rng.uniform(0, 1, (2, 7))
    gate = rng.uniform(0.5, 1, (2, 7)) if gated else None
    init = rng.standard_normal((2, 4, 3)) if with_init else None
    y, S = rec.delta_rule(q, k, v, beta, gate=gate, init=init,
                          return_final_state=True, schedule=schedule,
                          chunk_size=chunk)
    want_y, want_S = delta_reference(q, k, v, beta, gate, init)
    np.testing.assert_allclose(y, want_y, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(S, want_S, rtol=1e-10, atol=1e-12)


def test_decoding_step_by_step_equals_the_whole_prefix():
    rng = np.random.default_rng(5)
    q, k = rng.standard_normal((6, 4)), rng.standard_normal((6, 4))
    k /= np.linalg.norm(k, axis=-1, keepdims=True)
    v, beta = rng.standard_normal((6, 3)), rng.uniform(0, 1, 6)
    whole = rec.delta_rule(q, k, v, beta)
    state = np.zeros((4, 3))
    for t in range(6):
        y, state = rec.delta_rule(q[t:t + 1], k[t:t + 1], v[t:t + 1],
                                  beta[t:t + 1], init=state,
                                  return_final_state=True)
        np.testing.assert_allclose(y[0], whole[t], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("schedule,chunk", SCHEDULES)
def test_selective_ssm(schedule, chunk):
    rng = np.random.default_rng(2)
    B_, T, Dm, N = 2, 6, 5, 3
    x, delta = rng.standard_normal((B_, T, Dm)), rng.uniform(0, 1, (B_, T, Dm))
    A, D = -rng.uniform(0, 1, (Dm, N)), rng.standard_normal(Dm)
    Bm, C = rng.standard_normal((B_, T, N)), rng.standard_normal((B_, T, N))
    init = rng.standard_normal((B_, N, Dm))
    h = init.copy()
    ys = []
    for t in range(T):
        a = np.exp(delta[:, t, None, :] * A.T[None])  # [B, N, Dm]
        h = a * h + Bm[:, t, :, None] * (delta[:, t] * x[:, t])[:, None, :]
        ys.append(np.einsum("bn,bnd->bd", C[:, t], h) + D * x[:, t])
    y, last = rec.selective_ssm(x, delta, A, Bm, C, D, init=init,
                                return_final_state=True, schedule=schedule,
                                chunk_size=chunk)
    np.testing.assert_allclose(y, np.stack(ys, 1), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(last, h, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("f", ["exp", "sigmoid", "softplus", "abs"])
def test_normalize_gates(f):
    rng = np.random.default_rng(3)
    raw = rng.standard_normal((2, 3, 5))
    w = {"exp": np.exp, "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
         "softplus": lambda x: np.log1p(np.exp(x)), "abs": np.abs}[f](raw)
    want = w / np.abs(w).sum(-1, keepdims=True)
    got = rec.normalize_gates(raw, f=f)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(np.abs(got).sum(-1), 1.0, rtol=1e-12)


@pytest.mark.parametrize("schedule,chunk", SCHEDULES)
def test_hlru_and_bdlru_stay_bounded_with_normalized_gates(schedule, chunk):
    rng = np.random.default_rng(4)
    T, N, m = 50, 4, 2
    gates = rec.normalize_gates(rng.standard_normal((3, T, N, m + 1)))
    v = rng.standard_normal((3, T, N))
    init = rng.standard_normal((3, m, N))
    h = rec.hlru(gates, v, init=init, schedule=schedule, chunk_size=chunk)
    hist = list(init.transpose(1, 0, 2))  # newest first
    for t in range(T):
        new = sum(gates[:, t, :, i] * hist[i] for i in range(m)) + \
            gates[:, t, :, m] * v[:, t]
        hist = [new] + hist[:-1]
        np.testing.assert_allclose(h[:, t], new, rtol=1e-10, atol=1e-12)
    bound = max(np.abs(init).max(), np.abs(v).max())
    assert np.abs(h).max() <= bound + 1e-12

    H = 3
    gates = rec.normalize_gates(rng.standard_normal((2, T, H, m, m + 1)))
    v = rng.standard_normal((2, T, H * m))
    hb = rec.bdlru(gates, v, schedule=schedule, chunk_size=chunk)
    state = np.zeros((2, H * m))
    for t in range(T):
        A = gates[:, t, :, :, :m]
        a0 = gates[:, t, :, :, m].reshape(2, H * m)
        state = np.einsum("bgij,bgj->bgi", A,
                          state.reshape(2, H, m)).reshape(2, H * m) + \
            a0 * v[:, t]
        np.testing.assert_allclose(hb[:, t], state, rtol=1e-10, atol=1e-12)
    assert np.abs(hb).max() <= np.abs(v).max() + 1e-12


def test_models_write_into_out():
    rng = np.random.default_rng(44)
    q, k = rng.standard_normal((2, 3, 9, 4)), rng.standard_normal((2, 3, 9, 4))
    v = rng.standard_normal((2, 3, 9, 5))
    want = rec.linear_attention(q, k, v)
    out = np.empty_like(want)
    assert rec.linear_attention(q, k, v, out=out) is out
    np.testing.assert_array_equal(out, want)

    beta = rng.uniform(0.1, 0.9, (2, 3, 9))
    want_y, want_s = rec.delta_rule(q, k, v, beta, return_final_state=True)
    # A strided out, written through a temporary.
    wide = np.zeros((2, 3, 9, 10))
    y, s = rec.delta_rule(q, k, v, beta, return_final_state=True,
                          out=wide[..., ::2],
                          final_state_out=np.empty((2, 3, 4, 5)))
    assert np.shares_memory(y, wide)
    np.testing.assert_array_equal(wide[..., ::2], want_y)
    np.testing.assert_array_equal(s, want_s)
    assert not wide[..., 1::2].any()
    with pytest.raises(ValueError, match="final_state_out: needs "
                       "return_final_state=True"):
        rec.delta_rule(q, k, v, beta, final_state_out=np.empty((2, 3, 4, 5)))

    gates = rng.standard_normal((3, 6, 4, 3))
    out = np.empty((3, 6, 4, 3))
    assert rec.normalize_gates(gates, out=out) is out
    np.testing.assert_array_equal(out, rec.normalize_gates(gates))
    with pytest.raises(TypeError, match="out: expected dtype float64"):
        rec.hlru(rec.normalize_gates(gates), rng.standard_normal((3, 6, 4)),
                 out=np.empty((3, 6, 4), np.float32))


def test_model_structures_come_from_the_decomposition():
    """The structures recurrence.torch composes each model from are the ones
    the compiler's decomposition of the model op builds."""
    from recurrence import models
    assert models.model_structures("bdlru", param=4) == ["block_diagonal"]
    assert models.model_structures("hlru", param=2) == ["higher_order"]
    assert models.model_structures("linear_attention") == ["identity"] * 2
    assert models.model_structures("linear_attention",
                                   normalize=False) == ["identity"]
    assert models.model_structures("delta_rule", gated=True) == ["dplr"]
    assert models.model_structures("selective_ssm") == ["diagonal"]
    assert models.model_structures("normalize_gates") == []
    with pytest.raises(ValueError, match="unknown model 'mamba'"):
        models.model_structures("mamba")
    with pytest.raises(ValueError, match="parameter 0 below 1"):
        models.model_structures("bdlru", param=0)


def test_a_model_is_compiled_for_its_first_sizes_then_for_any(monkeypatch):
    """A variant's first call compiles it for that call's sizes (constant
    trip counts and strides); a call at other sizes compiles it once more,
    for dynamic sizes, as torch.compile's automatic dynamic shapes do. Both
    agree with the reference, forward and backward."""
    from recurrence import models
    monkeypatch.setattr(models, "_cache", {})
    monkeypatch.setattr(rec.api, "_static_shapes", {})
    monkeypatch.delenv("RECURRENCE_STATIC_SHAPES", raising=False)
    rng = np.random.default_rng(8)

    def operands(steps):
        q = rng.standard_normal((2, 3, steps, 4))
        k = rng.standard_normal((2, 3, steps, 4))
        k /= np.linalg.norm(k, axis=-1, keepdims=True)
        return (q, k, rng.standard_normal((2, 3, steps, 5)),
                rng.uniform(0, 1, (2, 3, steps)),
                rng.uniform(0.5, 1, (2, 3, steps)),
                rng.standard_normal((2, 3, 4, 5)))

    def forward(q, k, v, beta, gate, init):
        return rec.delta_rule(q, k, v, beta, gate=gate, init=init,
                              return_final_state=True, schedule="chunked",
                              chunk_size=4)

    calls = {steps: operands(steps) for steps in (9, 1, 6)}
    for steps in (9, 1, 9, 6):
        got = forward(*calls[steps])
        want = delta_reference(*calls[steps])
        for x, y in zip(got, want):
            np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-12)
    # Batch dims flattened: q [6, 9, 4], ..., the final state [6, 4, 5].
    assert sorted(map(repr, (key[-1] for key in models._cache))) == sorted(
        [repr(None), repr((((6, 9, 4), (6, 9, 4), (6, 9, 5), (6, 9),
                            (6, 9), (6, 4, 5)), ((6, 9, 5), (6, 4, 5))))])

    # The gradient at dynamic sizes (a call after one at other sizes)
    # equals the one compiled for the static sizes of the same call.
    def gradient(q, k, v, beta, gate, init):
        y_bar = np.cos(np.arange(v.size)).reshape(v.shape)
        return models.delta_rule_gradient(
            q, k, v, beta, gate=gate, init=init, y_bar=y_bar,
            final_state_bar=np.sin(np.arange(init.size)).reshape(init.shape),
            schedule="chunked", chunk_size=4)

    gradient(*calls[9])
    dynamic = gradient(*calls[6])
    gradients = [key for key in models._cache if key[0]]
    assert [key[-1] is None for key in gradients] == [False, True]
    monkeypatch.setattr(models, "_cache", {})
    monkeypatch.setattr(rec.api, "_static_shapes", {})
    static = gradient(*calls[6])
    assert [key[-1][0][0] for key in models._cache] == [(6, 6, 4)]
    assert len(static) == len(dynamic) == 6
    for x, y in zip(static, dynamic):
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-13)

    # $RECURRENCE_STATIC_SHAPES: how many shapes a variant is compiled for.
    monkeypatch.setattr(models, "_cache", {})
    monkeypatch.setattr(rec.api, "_static_shapes", {})
    monkeypatch.setenv("RECURRENCE_STATIC_SHAPES", "2")
    for steps in (9, 1, 6):
        forward(*calls[steps])
    assert sorted(len(key[-1][0][0]) if key[-1] else 0
                  for key in models._cache) == [0, 3, 3]
    monkeypatch.setattr(models, "_cache", {})
    monkeypatch.setattr(rec.api, "_static_shapes", {})
    monkeypatch.setenv("RECURRENCE_STATIC_SHAPES", "0")
    forward(*calls[9])
    assert [key[-1] for key in models._cache] == [None]
    monkeypatch.setattr(rec.api, "_static_shapes", {})
    monkeypatch.setenv("RECURRENCE_STATIC_SHAPES", "some")
    with pytest.raises(ValueError, match="RECURRENCE_STATIC_SHAPES: "
                                         "expected a count of shapes"):
        forward(*calls[9])

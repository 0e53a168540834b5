"""Model-level recurrences: the dialect's model ops, called from NumPy.

Each function asks the compiler (ModelSpec, through the binding) for a
function holding one model op (batch dims flattened to one), compiles it
once per dtype, variant and sizes, and calls it. Like torch.compile's
automatic dynamic shapes, a variant is compiled for the static sizes of its
first calls, where its loops' trip counts and strides are constants, and
for dynamic sizes once calls bring more shapes (api.static_sizes).
The Python side only checks arguments and moves data (reshapes, views);
the maths is in the ops and their decompositions.
"""

import threading

import numpy as np

from . import _recurrence, api
from ._checks import (as_float_array, check_choice, check_out, check_rank,
                      check_shape, unaliased)

_cache = {}
# _decode sets .calls to a list, and _outputs appends each call it makes
# to it (per thread).
_recording = threading.local()
# Decode steps by layout: how a step of known shapes calls its compiled op.
_decode_plans = {}


def _batch_first(array, trailing):
    """[..., *trailing dims] -> [B, *trailing dims], B the product of the
    batch dims (1 without any, 0 when one is 0)."""
    batch = array.shape[:array.ndim - trailing]
    return array.reshape((int(np.prod(batch)),) +
                         array.shape[array.ndim - trailing:])


def _flatten_batch(name, array, trailing):
    """[..., *trailing dims] -> [B, *trailing dims]; returns (view, batch)."""
    check_rank(name, array, trailing, f"[..., {trailing} dims]")
    return _batch_first(array, trailing), array.shape[:array.ndim - trailing]


def _outputs(compiled, args, flat_shapes, shapes, outs, names=None):
    """Calls `compiled` for one result per entry of `outs` (out=, then
    final_state_out=, or as `names` says) of `flat_shapes`, and returns them
    reshaped to `shapes`. A given out (exact shape and dtype) receives its
    result: the compiled code writes into it directly when it can be viewed
    in the flat shape, else into a temporary copied back."""
    dtype = args[0].dtype
    names = names or ("out", "final_state_out")
    checked = [check_out(name, out, shape, dtype)
               for name, out, shape in zip(names, outs, shapes)]
    given = [(name, out) for name, out in zip(names, checked)
             if out is not None]
    for i, (name, out) in enumerate(given):
        if any(np.may_share_memory(out, other) for _, other in given[:i]):
            raise ValueError(f"{name}: must not overlap {given[0][0]}"
                             if i == 1 else f"{name}: must not overlap the "
                             f"other outputs")
    views = [None if out is None else out.reshape(flat)
             for out, flat in zip(checked, flat_shapes)]
    calls = getattr(_recording, "calls", None)
    if calls is not None:
        calls.append((compiled, args, flat_shapes[:len(outs)],
                      shapes[:len(outs)]))
    got = compiled(*args, result_shapes=flat_shapes[:len(outs)], outs=views)
    got = got if isinstance(got, tuple) else (got,)
    results = []
    for value, out, shape in zip(got, checked, shapes):
        if out is None:
            results.append(value.reshape(shape))
            continue
        if not np.shares_memory(value, out):
            out[...] = value.reshape(shape)
        results.append(out)
    return results[0] if len(results) == 1 else tuple(results)


def _final_outs(out, final_state_out, return_final_state):
    """The outs of a model with an optional final state."""
    if final_state_out is not None and not return_final_state:
        raise ValueError("final_state_out: needs return_final_state=True")
    return [out, final_state_out] if return_final_state else [out]


def _init(name, init, dtype, batch, state, as_array=as_float_array):
    """A model's init named `name`, checked against its shape `batch` +
    `state` and flattened to [B, *state]; None stays None."""
    if init is None:
        return None
    init = as_array(name, init, dtype)
    check_shape(name, init, tuple(batch) + tuple(state))
    return _batch_first(init, len(state))


def _state_arrays(name, value, what, count):
    """A state given as one array (count 1) or a pair of arrays, as a list;
    None stays None."""
    if value is None:
        return None
    if count == 1:
        if isinstance(value, (tuple, list)):
            raise TypeError(f"{name}: expected {what}, one array, got a "
                            f"{type(value).__name__}")
        return [value]
    if not isinstance(value, (tuple, list)) or len(value) != count:
        raise TypeError(f"{name}: expected {what}, got "
                        f"{type(value).__name__}")
    return list(value)


def _state_shape(state, offsets, steps):
    """(A state's trailing shape, the checked offsets): `state`, or (S,) +
    state for sequences packed along `steps` by `offsets`."""
    if offsets is None:
        return tuple(state), None
    offsets = api._offsets(offsets, steps)
    return (offsets.size - 1,) + tuple(state), offsets


def _schedule_of(schedule, chunk_size):
    """(schedule, chunk) after checking the arguments like ``scan`` does."""
    check_choice("schedule", schedule, api.SCHEDULES)
    if chunk_size is not None:
        if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or \
                chunk_size < 1:
            raise ValueError(f"chunk_size: expected a positive int, got "
                             f"{chunk_size!r}")
        if schedule == "auto":
            schedule = "chunked"
    if schedule == "chunked":
        return schedule, chunk_size or api.DEFAULT_CHUNK
    return schedule, 0


def _model_spec(model, dtype, function="exp", param=0, init=False,
                schedule="auto", chunk_size=None, feature_map="elu1",
                normalize=True, eps=1e-8, gated=False, skip=False,
                final_state=False, offsets=False, target="cpu"):
    """The spec of a model op, as the compiler's ModelSpec reads it."""
    schedule, chunk = _schedule_of(schedule, chunk_size)
    return dict(model=model, target=target, function=function,
                param=int(param),
                init=bool(init), f64=dtype == np.float64, schedule=schedule,
                chunk_size=int(chunk), feature_map=feature_map,
                normalize=bool(normalize), eps=float(eps), gated=bool(gated),
                skip=bool(skip), final_state=bool(final_state),
                offsets=bool(offsets))


def _model(model, dtype, gradient=False, shapes=None, **options):
    """The compiled model op (cached), built by the compiler's ModelSpec; or,
    with `gradient`, the gradient -recurrence-differentiate derives for it:
    (operands..., one cotangent per result) -> one gradient per operand.
    For the spec's target's arrays: NumPy's, or CUDA's. `shapes`, the
    call's (argument shapes, result shapes), may specialize it to them
    (see `_static_shapes`)."""
    spec = _model_spec(model, dtype, **options)
    variant = (gradient,) + tuple(sorted(spec.items()))
    shapes = _static_shapes(variant, spec["target"], shapes)
    key = variant + (shapes,)
    compiled = _cache.get(key)
    if compiled is None:
        if shapes is not None:
            spec = dict(spec, arg_shapes=shapes[0], result_shapes=shapes[1])
        try:
            native = _recurrence.compile_model(spec, gradient=gradient)
        except Exception:
            # A compile that failed takes no static shape's place.
            api._static_shapes.get(variant, set()).discard(shapes)
            raise
        entry = "model_grad" if gradient else "model"
        compiled = (api.CudaCompiled(native, entry) if spec["target"] == "cuda"
                    else api.Compiled(native, entry))
        _cache[key] = compiled
    return compiled


def _static_shapes(variant, target, shapes):
    """The sizes to compile `variant` for: `shapes` ((argument shapes,
    result shapes)) when api.static_sizes says so, else None: dynamic
    sizes."""
    if shapes is None:
        return None
    shapes = tuple(tuple(tuple(int(d) for d in shape) for shape in group)
                   for group in shapes)
    dims = [d for group in shapes for shape in group for d in shape]
    return shapes if api.static_sizes(variant, shapes, target, dims) else None


def model_structures(model, **options):
    """The structure of each scan that model op `model` decomposes into, in
    order (the block-diagonal one for ``bdlru``), as the compiler's
    decomposition builds them: front doors that compose a model from scans
    take the structures from here."""
    spec = _model_spec(model, np.float32, **options)
    key = ("scans",) + tuple(sorted(spec.items()))
    structures = _cache.get(key)
    if structures is None:
        structures = [scan["structure"]
                      for scan in _recurrence.model_scans(spec)]
        _cache[key] = structures
    return list(structures)


#===------------------------------------------------------------------------===#
# Gates
#===------------------------------------------------------------------------===#

GATE_FUNCTIONS = ("exp", "sigmoid", "softplus", "abs")


def normalize_gates(raw, *, f="exp", out=None):
    """w = f(raw), divided by sum(|w|) over the last axis, so that every row
    of gates sums to one in absolute value (f: exp, sigmoid, softplus, abs).
    """
    check_choice("f", f, GATE_FUNCTIONS)
    raw = as_float_array("raw", raw)
    check_rank("raw", raw, 1, "[..., K]")
    flat = raw.reshape(-1, raw.shape[-1])
    compiled = _model("normalize_gates", raw.dtype, function=f,
                      shapes=([flat.shape], [flat.shape]))
    return _outputs(compiled, [flat], [flat.shape], [raw.shape], [out])


#===------------------------------------------------------------------------===#
# Calling a model op and its gradient
#===------------------------------------------------------------------------===#

def _run(model, operands, return_final_state, schedule, chunk_size, out,
         final_state_out):
    """Model op `model` on its `operands` (args, their results' flat shapes
    and shapes, spec options: as the `_<model>_operands` functions give
    them), its results written into `out` and `final_state_out` where
    given. A model whose state is a pair takes a pair of final outs."""
    args, flat, shapes, options = operands
    outs = _final_outs(out, final_state_out, return_final_state)
    compiled = _model(model, args[0].dtype, final_state=return_final_state,
                      schedule=schedule, chunk_size=chunk_size,
                      shapes=([a.shape for a in args],
                              flat[:len(flat) if return_final_state else 1]),
                      **options)
    names = None
    if return_final_state and len(shapes) > 2:
        outs = [out] + (list(final_state_out) if final_state_out is not None
                        else [None] * (len(shapes) - 1))
        names = ["out"] + [f"final_state_out[{i}]"
                           for i in range(len(shapes) - 1)]
    results = _outputs(compiled, args, flat, shapes, outs, names)
    if names is None:
        return results
    return results[0], tuple(results[1:])


def _gradient(model, operands, originals, y_bar, final_state_bar,
              schedule, chunk_size, as_array=as_float_array, dtype=None,
              target="cpu"):
    """Calls the compiled gradient of `model` on its `operands` (as
    `_run`'s) and the cotangents; returns one gradient per given operand of
    `originals`, in its shape. `final_state_bar` is an array, or a pair for
    a state that is a pair. `as_array` makes the cotangents arrays,
    `dtype` is the state's NumPy dtype (the args' by default) and `target`
    where the arrays live ("cpu" for NumPy's, "cuda" for CUDA's)."""
    args, flat, shapes, options = operands
    dtype = dtype or args[0].dtype
    cotangents = [as_array("y_bar", y_bar, args[0].dtype)]
    check_shape("y_bar", cotangents[0], shapes[0])
    states = len(shapes) - 1
    bars = _state_arrays("final_state_bar", final_state_bar,
                         "one array per state (a pair for a pair)", states)
    for i, (bar, shape) in enumerate(zip(bars or [], shapes[1:])):
        name = "final_state_bar" + (f"[{i}]" if states > 1 else "")
        cotangents.append(as_array(name, bar, args[0].dtype))
        check_shape(name, cotangents[-1], shape)
    compiled = _model(
        model, dtype, gradient=True, final_state=bars is not None,
        schedule=schedule, chunk_size=chunk_size, target=target,
        shapes=([np.shape(a) for a in args], flat[:1 + len(bars or [])]),
        **options)
    grads = compiled(*args, *(c.reshape(f) for c, f in zip(cotangents, flat)),
                     result_shapes=[a.shape for a in args])
    # (The offsets' entry, last, has no operand of its own.)
    given = [v for v in originals if v is not None]
    return tuple(g.reshape(np.shape(v)) for g, v in zip(grads, given))


#===------------------------------------------------------------------------===#
# Linear recurrent units
#===------------------------------------------------------------------------===#

def _hlru_operands(gates, v, init, offsets, as_array=as_float_array):
    """H-LRU's operands as its compiled op takes them (see `_run`); it has
    no packed form."""
    gates = as_array("gates", gates)
    check_rank("gates", gates, 3, "[..., T, N, m+1]")
    v = as_array("v", v, gates.dtype)
    order = gates.shape[-1] - 1
    if order < 1:
        raise ValueError(f"gates: expected at least 2 gates in the last axis "
                         f"(m state gates and an input gate), got "
                         f"{gates.shape[-1]}")
    if offsets is not None:
        raise ValueError("offsets: hlru takes no packed sequences")
    check_shape("v", v, gates.shape[:-1])
    return _gated_operands(gates, 3, v, init, (order, gates.shape[-2]), None,
                           as_array, order)


def _bdlru_operands(gates, v, init, offsets, as_array=as_float_array):
    """BD-LRU's operands as its compiled op takes them (see `_run`)."""
    gates = as_array("gates", gates)
    check_rank("gates", gates, 4, "[..., T, H, m, m+1]")
    v = as_array("v", v, gates.dtype)
    m = gates.shape[-2]
    if gates.shape[-1] != m + 1:
        raise ValueError(f"gates: expected last axis m+1 = {m + 1} for blocks "
                         f"of m = {m}, got {gates.shape[-1]}")
    check_shape("v", v, gates.shape[:-3] + (gates.shape[-3] * m,))
    state, offsets = _state_shape((v.shape[-1],), offsets, v.shape[-2])
    return _gated_operands(gates, 4, v, init, state, offsets, as_array, m)


def _gated_operands(gates, trailing, v, init, state, offsets, as_array,
                    param):
    """A gated LRU's (hlru, bdlru) checked operands, flattened to one batch
    dim (`gates` has `trailing` dims after it); `state` is the shape of one
    batch element's state."""
    flat, batch = _flatten_batch("gates", gates, trailing)
    init = _init("init", init, gates.dtype, batch, state, as_array)
    vf = v.reshape(flat.shape[:2] + v.shape[-1:])
    args = [flat, vf] + [x for x in (init, offsets) if x is not None]
    options = dict(param=param, init=init is not None,
                   offsets=offsets is not None)
    return (args, [vf.shape, (flat.shape[0],) + state],
            [v.shape, batch + state], options)


def hlru(gates, v, *, init=None, return_final_state=False, schedule="auto",
         chunk_size=None, out=None, final_state_out=None):
    """H-LRU of order m: h_t = sum_i a_{i,t} * h_{t-i} + a_{0,t} * v_t.

    gates: [..., T, N, m+1], the m state gates then the input gate;
    v: [..., T, N]; init: [..., m, N], newest state first. Returns h
    [..., T, N] (and the m most recent states [..., m, N], newest first).
    """
    return _run("hlru", _hlru_operands(gates, v, init, None),
                return_final_state, schedule, chunk_size, out,
                final_state_out)


def hlru_gradient(gates, v, *, init=None, y_bar, final_state_bar=None,
                  schedule="auto", chunk_size=None):
    """The gradient of sum(y_bar * h) + sum(final_state_bar * state) for
    ``hlru``, as the compiler derives it for the model op: the gradients of
    gates and v, then init where given."""
    return _gradient("hlru", _hlru_operands(gates, v, init, None),
                     (gates, v, init), y_bar, final_state_bar, schedule,
                     chunk_size)


def bdlru(gates, v, *, init=None, return_final_state=False, schedule="auto",
          chunk_size=None, out=None, final_state_out=None, offsets=None):
    """BD-LRU with blocks of m: h_t = A_t h_{t-1} + a_{0,t} * v_t.

    gates: [..., T, H, m, m+1], each block row's m state gates then its
    input gate; v: [..., T, H*m]; init: [..., H*m]. Returns h [..., T, H*m]
    (and h_T [..., H*m]).
    offsets: [S + 1] bounds of sequences packed along T (cu_seqlens); each
    restarts from its own init, and init and h_T are [..., S, H*m].
    """
    return _run("bdlru", _bdlru_operands(gates, v, init, offsets),
                return_final_state, schedule, chunk_size, out,
                final_state_out)


def bdlru_gradient(gates, v, *, init=None, y_bar, final_state_bar=None,
                   schedule="auto", chunk_size=None, offsets=None):
    """The gradient of sum(y_bar * h) + sum(final_state_bar * h_T) for
    ``bdlru``, as the compiler derives it for the model op: the gradients
    of gates and v, then init where given."""
    return _gradient("bdlru", _bdlru_operands(gates, v, init, offsets),
                     (gates, v, init), y_bar, final_state_bar, schedule,
                     chunk_size)


#===------------------------------------------------------------------------===#
# Attention-like recurrences on a matrix state
#===------------------------------------------------------------------------===#

def _linear_attention_operands(q, k, v, init, normalizer_init, offsets,
                               as_array=as_float_array, feature_map="elu1",
                               normalize=True, eps=1e-8):
    """Linear attention's operands as its compiled op takes them (see
    `_run`): `init` is S's, `normalizer_init` c's (given with it when
    normalized, else None)."""
    check_choice("feature_map", feature_map, ("elu1", "identity"))
    q = as_array("q", q)
    k = as_array("k", k, q.dtype)
    v = as_array("v", v, q.dtype)
    check_rank("q", q, 2, "[..., T, dk]")
    check_shape("k", k, q.shape)
    check_shape("v", v, q.shape[:-1] + v.shape[-1:])
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or eps < 0:
        raise ValueError(f"eps: expected a non-negative number, got {eps!r}")
    dk, dv = q.shape[-1], v.shape[-1]
    state, offsets = _state_shape((dk, dv), offsets, q.shape[-2])
    # The states: S, and normalized also c (S's shape without dv).
    states = [state] + ([state[:-1]] if normalize else [])
    batch = q.shape[:-2]
    inits = [init, normalizer_init][:len(states)]
    if init is None:
        inits = []
    elif any(x is None for x in inits) or (not normalize and
                                           normalizer_init is not None):
        raise TypeError("init: expected " + ("a pair (S, c)" if normalize
                                             else "S, one array"))
    inits = [_init(name, x, q.dtype, batch, shape, as_array)
             for name, x, shape in zip(["init", "normalizer init"], inits,
                                       states)]
    qf, _ = _flatten_batch("q", q, 2)
    vf = v.reshape(qf.shape[:2] + (dv,))
    args = [qf, k.reshape(qf.shape), vf] + inits + (
        [offsets] if offsets is not None else [])
    options = dict(feature_map=feature_map, normalize=normalize, eps=eps,
                   init=bool(inits), offsets=offsets is not None)
    return (args, [vf.shape] + [(qf.shape[0],) + x for x in states],
            [v.shape] + [batch + x for x in states], options)


def _linear_attention_inits(init, normalize):
    """(S's init, c's init) from a model's init: S, or the pair (S, c)."""
    inits = _state_arrays("init", init, "a pair (S, c)" if normalize else "S",
                          2 if normalize else 1)
    return tuple(inits or []) + (None,) * (2 - len(inits or []))


def linear_attention(q, k, v, *, feature_map="elu1", normalize=True,
                     eps=1e-8, init=None, return_final_state=False,
                     schedule="auto", chunk_size=None, out=None,
                     final_state_out=None, offsets=None):
    """y_t = phi(q_t)^T S_t / max(phi(q_t)^T c_t, eps) with
    S_t = S_{t-1} + phi(k_t) v_t^T and c_t = c_{t-1} + phi(k_t).

    q, k: [..., T, dk]; v: [..., T, dv]; phi(x) = x + 1 if x > 0 else e^x
    ("elu1") or x ("identity"). Without ``normalize`` y_t = phi(q_t)^T S_t.
    The state is S [..., dk, dv], and normalized the pair (S, c) with c
    [..., dk]: ``init`` takes it (zero without), ``return_final_state``
    returns (y, state after the last step), ``final_state_out`` receives it
    (an array, or a pair of arrays when normalized).
    offsets: [S + 1] bounds of sequences packed along T (cu_seqlens), each
    starting from its own init (zero without one); the states then hold one
    per sequence, [..., S, dk, dv] and [..., S, dk].
    """
    _state_arrays("final_state_out", final_state_out,
                  "a pair (S, c)" if normalize else "S",
                  2 if normalize else 1)
    operands = _linear_attention_operands(
        q, k, v, *_linear_attention_inits(init, normalize), offsets,
        feature_map=feature_map, normalize=normalize, eps=eps)
    return _run("linear_attention", operands, return_final_state, schedule,
                chunk_size, out, final_state_out)


def linear_attention_gradient(q, k, v, *, feature_map="elu1",
                              normalize=True, eps=1e-8, init=None, y_bar,
                              final_state_bar=None, schedule="auto",
                              chunk_size=None, offsets=None):
    """The gradient of sum(y_bar * y) + sum(final_state_bar * state) for
    ``linear_attention`` (state and bars: S, or the pair (S, c) when
    normalized), as the compiler derives it for the model op: the
    gradients of q, k and v, then of the init's arrays where given."""
    inits = _linear_attention_inits(init, normalize)
    return _gradient("linear_attention",
                     _linear_attention_operands(
                         q, k, v, *inits, offsets, feature_map=feature_map,
                         normalize=normalize, eps=eps),
                     (q, k, v) + inits, y_bar, final_state_bar, schedule,
                     chunk_size)


def delta_rule(q, k, v, beta, *, gate=None, init=None,
               return_final_state=False, schedule="auto", chunk_size=None,
               out=None, final_state_out=None, offsets=None):
    """(Gated) delta rule: S_t = g_t S_{t-1} + b_t k_t (v_t - k_t^T g_t
    S_{t-1})^T, y_t = S_t^T q_t, as dplr<1> with d = g, U = -g b k, V = k and
    input (b k) v^T. q, k: [..., T, dk]; v: [..., T, dv]; beta, gate:
    [..., T]; init: [..., dk, dv]. Returns y [..., T, dv] (and S_T).
    offsets: [S + 1] bounds of sequences packed along T (cu_seqlens); each
    restarts from its own init, and init and S_T are [..., S, dk, dv]."""
    return _run("delta_rule",
                _delta_rule_operands(q, k, v, beta, gate, init, offsets),
                return_final_state, schedule, chunk_size, out,
                final_state_out)


def delta_rule_gradient(q, k, v, beta, *, gate=None, init=None, y_bar,
                        final_state_bar=None, schedule="auto",
                        chunk_size=None, offsets=None):
    """The gradient of sum(y_bar * y) + sum(final_state_bar * S_T) for
    ``delta_rule``, as the compiler derives it for the model op: the
    gradients of q, k, v, beta, then gate and init where given."""
    return _gradient("delta_rule",
                     _delta_rule_operands(q, k, v, beta, gate, init,
                                          offsets),
                     (q, k, v, beta, gate, init), y_bar, final_state_bar,
                     schedule, chunk_size)


def _delta_rule_operands(q, k, v, beta, gate, init, offsets,
                         as_array=as_float_array):
    """The delta rule's operands as its compiled op takes them (see
    `_selective_ssm_operands`)."""
    q = as_array("q", q)
    k = as_array("k", k, q.dtype)
    v = as_array("v", v, q.dtype)
    beta = as_array("beta", beta, q.dtype)
    check_rank("q", q, 2, "[..., T, dk]")
    check_shape("k", k, q.shape)
    check_shape("v", v, q.shape[:-1] + v.shape[-1:])
    check_shape("beta", beta, q.shape[:-1])
    if gate is not None:
        gate = as_array("gate", gate, q.dtype)
        check_shape("gate", gate, q.shape[:-1])
    dk, dv = q.shape[-1], v.shape[-1]
    state, offsets = _state_shape((dk, dv), offsets, q.shape[-2])
    init = _init("init", init, q.dtype, q.shape[:-2], state,
                 as_array)
    qf, batch = _flatten_batch("q", q, 2)
    vf = v.reshape(qf.shape[:2] + (dv,))
    args = [qf, k.reshape(qf.shape), vf, beta.reshape(qf.shape[:2])]
    if gate is not None:
        args.append(gate.reshape(qf.shape[:2]))
    args += [x for x in (init, offsets) if x is not None]
    options = dict(init=init is not None, gated=gate is not None,
                   offsets=offsets is not None)
    return (args, [vf.shape, (qf.shape[0],) + state],
            [v.shape, batch + state], options)


def selective_ssm(x, delta, A, B, C, D=None, *, init=None,
                  return_final_state=False, schedule="auto", chunk_size=None,
                  out=None, final_state_out=None, offsets=None):
    """Mamba's selective SSM: h_t[n, d] = exp(delta_t[d] A[d, n]) h_{t-1}[n, d]
    + delta_t[d] B_t[n] x_t[d]; y_t[d] = sum_n C_t[n] h_t[n, d] + D[d] x_t[d].

    x, delta: [..., T, Dm]; A: [Dm, N]; B, C: [..., T, N]; D: [Dm];
    init: [..., N, Dm]. Returns y [..., T, Dm] (and h_T [..., N, Dm]).
    offsets: [S + 1] bounds of sequences packed along T (cu_seqlens); each
    restarts from its own init, and init and h_T are [..., S, N, Dm].
    """
    return _run("selective_ssm",
                _selective_ssm_operands(x, delta, A, B, C, D, init, offsets),
                return_final_state, schedule, chunk_size, out,
                final_state_out)


def selective_ssm_gradient(x, delta, A, B, C, D=None, *, init=None,
                           y_bar, final_state_bar=None, schedule="auto",
                           chunk_size=None, offsets=None):
    """The gradient of sum(y_bar * y) + sum(final_state_bar * h_T) for
    ``selective_ssm`` (the compiler's derivation of the model op): the
    gradients of x, delta, A, B, C, then D and init where given, in their
    shapes. The states are recomputed, not kept from a forward call."""
    return _gradient("selective_ssm",
                     _selective_ssm_operands(x, delta, A, B, C, D, init,
                                             offsets),
                     (x, delta, A, B, C, D, init), y_bar, final_state_bar,
                     schedule, chunk_size)


def _selective_ssm_operands(x, delta, A, B, C, D, init, offsets,
                            as_array=as_float_array):
    """The selective SSM's operands checked and flattened to one batch dim
    as the compiled op takes them, the results' flat shapes and shapes, and
    the spec options they imply."""
    x = as_array("x", x)
    delta = as_array("delta", delta, x.dtype)
    A = as_array("A", A, x.dtype)
    B = as_array("B", B, x.dtype)
    C = as_array("C", C, x.dtype)
    check_rank("x", x, 2, "[..., T, Dm]")
    check_shape("delta", delta, x.shape)
    check_rank("A", A, 2, "[Dm, N]")
    dm, n = x.shape[-1], A.shape[-1]
    check_shape("A", A, (dm, n))
    check_shape("B", B, x.shape[:-1] + (n,))
    check_shape("C", C, x.shape[:-1] + (n,))
    if D is not None:
        D = as_array("D", D, x.dtype)
        check_shape("D", D, (dm,))
    state, offsets = _state_shape((n, dm), offsets, x.shape[-2])
    init = _init("init", init, x.dtype, x.shape[:-2], state,
                 as_array)
    xf, batch = _flatten_batch("x", x, 2)
    args = [xf, delta.reshape(xf.shape), A, B.reshape(xf.shape[:2] + (n,)),
            C.reshape(xf.shape[:2] + (n,))]
    args += [v for v in (D, init, offsets) if v is not None]
    options = dict(init=init is not None, skip=D is not None,
                   offsets=offsets is not None)
    return (args, [xf.shape, (xf.shape[0],) + state],
            [x.shape, batch + state], options)


# The model ops with a derived gradient, by name: how each checks its
# operands (in the order of its torch function's, then the offsets) and
# flattens their batch dims into one, as its compiled op and gradient take
# them. Keywords: the model's options.
_OPERANDS = {"selective_ssm": _selective_ssm_operands,
             "delta_rule": _delta_rule_operands,
             "linear_attention": _linear_attention_operands,
             "hlru": _hlru_operands,
             "bdlru": _bdlru_operands}


#===------------------------------------------------------------------------===#
# Decode steps: each model on one step, from its state and back
#===------------------------------------------------------------------------===#

def _one_step(name, x, trailing):
    """One step's operand [..., *trailing dims] as a sequence of one step,
    [..., 1, *trailing dims] (a view)."""
    x = np.asarray(x)
    check_rank(name, x, trailing, f"[..., {trailing} dims]")
    return np.expand_dims(x, x.ndim - trailing)


def _decode(model, operands, state, out, state_out, **options):
    """`model` (a function of this module) on operands of one step each,
    given as (name, array, dims after the time axis) or as is (None name),
    from `state`: returns (y, the new state). ``out`` receives y and
    ``state_out`` the new state; ``state_out=state`` advances it in place.
    The first call of a layout runs the model's checks; later ones with the
    same shapes, dtypes and contiguity call its compiled op directly."""
    pair = isinstance(state, (tuple, list))
    states = list(state) if pair else [state]
    inputs = [x for _, x, _ in operands if x is not None] + [
        x for x in options.values() if isinstance(x, np.ndarray)] + states
    key = _decode_key(model, inputs, options, out, state, state_out)
    if key is not None:
        key += (tuple(x is None for _, x, _ in operands),)
    plan = _decode_plans.get(key) if key is not None else None
    if plan is not None:
        return _run_plan(plan, inputs, out, state_out, pair)
    args = [x if name is None else _one_step(name, x, trailing)
            for name, x, trailing in operands]
    given = out
    if isinstance(out, np.ndarray):
        out = np.expand_dims(out, out.ndim - 1)
    _recording.calls = calls = []
    try:
        y, last = model(*args, init=state, return_final_state=True,
                        schedule="sequential", out=out,
                        final_state_out=state_out, **options)
    finally:
        _recording.calls = None
    if key is not None and len(calls) == 1 and len(_decode_plans) < 64:
        _decode_plans[key] = _plan_of(calls[0], inputs)
    return (np.squeeze(y, y.ndim - 2) if given is None else given), last


def _decode_key(model, inputs, options, out, state, state_out):
    """The layout of a decode step's call, or None when it has no plan:
    inputs that are not C-contiguous NumPy arrays, or outs that are not."""
    arrays = inputs + [x for x in (
        [out] + (list(state_out) if isinstance(state_out, (tuple, list))
                 else [state_out])) if x is not None]
    if not all(type(x) is np.ndarray and x.flags.c_contiguous
               for x in arrays):
        return None
    return (model.__name__, out is None, state_out is None,
            state_out is state, isinstance(state, (tuple, list)),
            isinstance(state_out, (tuple, list)),
            tuple((name, value) for name, value in sorted(options.items())
                  if not isinstance(value, np.ndarray)),
            tuple((x.shape, x.dtype.str, x.flags.writeable)
                  for x in arrays))


def _plan_of(call, inputs):
    """How the step's recorded call got each argument: the input it views
    (with the shape it took), or None when an argument is a copy or could
    view either of two inputs (the same array passed twice)."""
    compiled, args, flat_shapes, shapes = call
    sources = []
    for arg in args:
        found = [i for i, x in enumerate(inputs)
                 if x.size == arg.size and x.dtype == arg.dtype and
                 arg.flags.c_contiguous and x.__array_interface__["data"][0]
                 == arg.__array_interface__["data"][0]]
        if len(found) != 1:
            return None
        sources.append((found[0], arg.shape))
    return compiled, sources, flat_shapes, shapes


def _run_plan(plan, inputs, out, state_out, pair):
    """A decode step through its plan: the compiled op on views of the
    inputs, its results written into `out` and `state_out` where given."""
    compiled, sources, flat_shapes, shapes = plan
    args = [inputs[i].reshape(shape) for i, shape in sources]
    targets = [out] + (list(state_out) if pair else [state_out]) \
        if state_out is not None else [out] + [None] * (len(shapes) - 1)
    outs = [None if x is None else x.reshape(flat)
            for x, flat in zip(targets, flat_shapes)]
    given = [x for x in outs if x is not None]
    if any(np.may_share_memory(x, y) for i, x in enumerate(given)
           for y in given[:i]):
        raise ValueError("out, state_out: must not overlap each other")
    results = compiled._native(unaliased(args, outs), flat_shapes, outs)
    y = results[0].reshape(shapes[0])
    y = np.squeeze(y, y.ndim - 2) if out is None else out
    last = [r.reshape(shape) if x is None else x
            for r, x, shape in zip(results[1:], targets[1:], shapes[1:])]
    return y, (tuple(last) if pair else last[0])


def linear_attention_step(q, k, v, state, *, feature_map="elu1",
                          normalize=True, eps=1e-8, out=None,
                          state_out=None):
    """One decoding step of ``linear_attention``: q, k [..., dk], v
    [..., dv], state S [..., dk, dv] (normalized: the pair (S, c)). Returns
    (y [..., dv], the new state); ``state_out=state`` advances in place.
    A prefix decoded step by step equals ``linear_attention`` over it."""
    return _decode(linear_attention,
                   [("q", q, 1), ("k", k, 1), ("v", v, 1)], state, out,
                   state_out, feature_map=feature_map, normalize=normalize,
                   eps=eps)


def delta_rule_step(q, k, v, beta, state, *, gate=None, out=None,
                    state_out=None):
    """One decoding step of ``delta_rule``: q, k [..., dk], v [..., dv],
    beta and gate [...], state S [..., dk, dv]. Returns (y [..., dv], the new
    state); ``state_out=state`` advances in place."""
    return _decode(delta_rule, [("q", q, 1), ("k", k, 1), ("v", v, 1),
                                ("beta", beta, 0)], state, out, state_out,
                   gate=None if gate is None else _one_step("gate", gate, 0))


def selective_ssm_step(x, delta, A, B, C, state, D=None, *, out=None,
                       state_out=None):
    """One decoding step of ``selective_ssm``: x, delta [..., Dm], A [Dm, N],
    B, C [..., N], D [Dm], state h [..., N, Dm]. Returns (y [..., Dm], the
    new state); ``state_out=state`` advances in place."""
    return _decode(selective_ssm,
                   [("x", x, 1), ("delta", delta, 1), (None, A, 0),
                    ("B", B, 1), ("C", C, 1), (None, D, 0)], state, out,
                   state_out)


def hlru_step(gates, v, state, *, out=None, state_out=None):
    """One decoding step of ``hlru``: gates [..., N, m+1], v [..., N], state
    the m most recent states [..., m, N], newest first. Returns (h [..., N],
    the new state); ``state_out=state`` advances in place."""
    return _decode(hlru, [("gates", gates, 2), ("v", v, 1)], state, out,
                   state_out)


def bdlru_step(gates, v, state, *, out=None, state_out=None):
    """One decoding step of ``bdlru``: gates [..., H, m, m+1], v [..., H*m],
    state [..., H*m]. Returns (h [..., H*m], the new state);
    ``state_out=state`` advances in place."""
    return _decode(bdlru, [("gates", gates, 3), ("v", v, 1)], state, out,
                   state_out)

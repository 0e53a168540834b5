"""Model-level recurrences, built as recurrence IR plus standard ops.

Each function emits a function on dynamically shaped tensors (batch dims
flattened to one), compiles it once per dtype and variant, and calls it. The
Python side only checks arguments and moves data (reshapes, views); every
arithmetic operation is in the IR.
"""

import numpy as np

from . import _recurrence, api
from ._checks import (as_float_array, check_choice, check_out, check_rank,
                      check_shape)

_cache = {}


def _element(dtype):
    return "f64" if dtype == np.float64 else "f32"


def _tensor(rank, t, static=None):
    """tensor<?x...xT>, with `static` {dim: size} fixed sizes."""
    dims = ["?"] * rank
    for dim, size in (static or {}).items():
        dims[dim] = str(size)
    return f"tensor<{'x'.join(dims)}x{t}>"


def _compiled(key, build):
    compiled = _cache.get(key)
    if compiled is None:
        compiled = api.compile(build(), "model")
        _cache[key] = compiled
    return compiled


def _flatten_batch(name, array, trailing):
    """[..., *trailing dims] -> [B, *trailing dims]; returns (view, batch)."""
    check_rank(name, array, trailing, f"[..., {trailing} dims]")
    batch = array.shape[:array.ndim - trailing]
    return array.reshape((-1,) + array.shape[array.ndim - trailing:]), batch


def _outputs(compiled, args, flat_shapes, shapes, outs):
    """Calls `compiled` for one result per entry of `outs` (out=, then
    final_state_out=) of `flat_shapes`, and returns them reshaped to
    `shapes`. A given out (exact shape and dtype) receives its result: the
    compiled code writes into it directly when it can be viewed in the flat
    shape, else into a temporary copied back."""
    dtype = args[0].dtype
    names = ("out", "final_state_out")
    checked = [check_out(name, out, shape, dtype)
               for name, out, shape in zip(names, outs, shapes)]
    given = [out for out in checked if out is not None]
    if len(given) == 2 and np.may_share_memory(*given):
        raise ValueError("final_state_out: must not overlap out")
    views = [None if out is None else out.reshape(flat)
             for out, flat in zip(checked, flat_shapes)]
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


def _dims(value, type_, names):
    """IR lines binding %<name> = tensor.dim %value, i for each name."""
    lines = []
    for i, name in enumerate(names):
        if name:
            lines.append(f"%c{name} = arith.constant {i} : index")
            lines.append(f"%{name} = tensor.dim %{value}, %c{name} : {type_}")
    return "\n  ".join(lines)


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


def _schedule(schedule, chunk_size):
    """The scan op's schedule clause (empty for auto)."""
    schedule, chunk = _schedule_of(schedule, chunk_size)
    if schedule == "auto":
        return ""
    if schedule == "chunked":
        return f" schedule chunked<{chunk}>"
    return f" schedule {schedule}"


def _model(model, dtype, function="exp", param=0, init=False,
           schedule="auto", chunk_size=None):
    """The compiled model op (cached), built by the compiler's ModelSpec."""
    schedule, chunk = _schedule_of(schedule, chunk_size)
    spec = dict(model=model, function=function, param=int(param),
                init=bool(init), f64=dtype == np.float64, schedule=schedule,
                chunk_size=int(chunk))
    key = tuple(sorted(spec.items()))
    compiled = _cache.get(key)
    if compiled is None:
        compiled = api.Compiled(_recurrence.compile_model(spec), "model")
        _cache[key] = compiled
    return compiled


def _maps(*maps):
    return ", ".join(f"affine_map<{m}>" for m in maps)


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
    compiled = _model("normalize_gates", raw.dtype, function=f)
    flat = raw.reshape(-1, raw.shape[-1])
    return _outputs(compiled, [flat], [flat.shape], [raw.shape], [out])


#===------------------------------------------------------------------------===#
# Linear recurrent units
#===------------------------------------------------------------------------===#

def _gated_scan(model, order, a, v, init, schedule, chunk_size, shape, out):
    """A gated LRU op (hlru, bdlru) on flattened batch dims."""
    compiled = _model(model, a.dtype, param=order, init=init is not None,
                      schedule=schedule, chunk_size=chunk_size)
    args = [a, v] + ([init] if init is not None else [])
    return _outputs(compiled, args, [v.shape], [shape], [out])


def hlru(gates, v, *, init=None, schedule="auto", chunk_size=None,
         out=None):
    """H-LRU of order m: h_t = sum_i a_{i,t} * h_{t-i} + a_{0,t} * v_t.

    gates: [..., T, N, m+1], the m state gates then the input gate;
    v: [..., T, N]; init: [..., m, N], newest state first.
    """
    gates = as_float_array("gates", gates)
    check_rank("gates", gates, 3, "[..., T, N, m+1]")
    v = as_float_array("v", v, gates.dtype)
    order = gates.shape[-1] - 1
    if order < 1:
        raise ValueError(f"gates: expected at least 2 gates in the last axis "
                         f"(m state gates and an input gate), got "
                         f"{gates.shape[-1]}")
    check_shape("v", v, gates.shape[:-1])
    flat, batch = _flatten_batch("gates", gates, 3)
    if init is not None:
        init = as_float_array("init", init, gates.dtype)
        check_shape("init", init, batch + (order, gates.shape[-2]))
        init = init.reshape((-1, order, gates.shape[-2]))
    return _gated_scan("hlru", order, flat, v.reshape(flat.shape[:-1]), init,
                       schedule, chunk_size, v.shape, out)


def bdlru(gates, v, *, init=None, schedule="auto", chunk_size=None,
          out=None):
    """BD-LRU with blocks of m: h_t = A_t h_{t-1} + a_{0,t} * v_t.

    gates: [..., T, H, m, m+1], each block row's m state gates then its
    input gate; v: [..., T, H*m]; init: [..., H*m].
    """
    gates = as_float_array("gates", gates)
    check_rank("gates", gates, 4, "[..., T, H, m, m+1]")
    v = as_float_array("v", v, gates.dtype)
    m = gates.shape[-2]
    if gates.shape[-1] != m + 1:
        raise ValueError(f"gates: expected last axis m+1 = {m + 1} for blocks "
                         f"of m = {m}, got {gates.shape[-1]}")
    check_shape("v", v, gates.shape[:-3] + (gates.shape[-3] * m,))
    flat, batch = _flatten_batch("gates", gates, 4)
    if init is not None:
        init = as_float_array("init", init, gates.dtype)
        check_shape("init", init, batch + (v.shape[-1],))
        init = init.reshape((-1, v.shape[-1]))
    return _gated_scan("bdlru", m, flat,
                       v.reshape(flat.shape[:2] + (v.shape[-1],)), init,
                       schedule, chunk_size, v.shape, out)


#===------------------------------------------------------------------------===#
# Attention-like recurrences on a matrix state
#===------------------------------------------------------------------------===#

def _elu1(x, t):
    """phi(x) = x + 1 if x > 0 else exp(x), as generic body lines."""
    return (f"%zero = arith.constant 0.0 : {t}\n      %one = arith.constant 1.0 : {t}\n"
            f"      %pos = arith.cmpf ogt, {x}, %zero : {t}\n"
            f"      %inc = arith.addf {x}, %one : {t}\n"
            f"      %exp = math.exp {x} : {t}\n"
            f"      %phi = arith.select %pos, %inc, %exp : {t}")


def _feature_map(value, out, t, three, feature_map):
    if feature_map == "identity":
        return f"%{out} = tensor.cast %{value} : {three} to {three}"
    return f"""%e{out} = tensor.empty(%b, %t, %n) : {three}
  %{out} = linalg.generic {{indexing_maps = [{_maps("(b, t, n) -> (b, t, n)", "(b, t, n) -> (b, t, n)")}],
      iterator_types = ["parallel", "parallel", "parallel"]}}
      ins(%{value} : {three}) outs(%e{out} : {three}) {{
    ^bb0(%x: {t}, %unused: {t}):
      {_elu1("%x", t)}
      linalg.yield %phi : {t}
  }} -> {three}"""


def linear_attention(q, k, v, *, feature_map="elu1", normalize=True,
                     eps=1e-8, schedule="auto", chunk_size=None, out=None):
    """y_t = phi(q_t)^T S_t / max(phi(q_t)^T c_t, eps) with
    S_t = S_{t-1} + phi(k_t) v_t^T and c_t = c_{t-1} + phi(k_t).

    q, k: [..., T, dk]; v: [..., T, dv]; phi(x) = x + 1 if x > 0 else e^x
    ("elu1") or x ("identity"). Without ``normalize`` y_t = phi(q_t)^T S_t.
    """
    check_choice("feature_map", feature_map, ("elu1", "identity"))
    q = as_float_array("q", q)
    k = as_float_array("k", k, q.dtype)
    v = as_float_array("v", v, q.dtype)
    check_rank("q", q, 2, "[..., T, dk]")
    check_shape("k", k, q.shape)
    check_shape("v", v, q.shape[:-1] + v.shape[-1:])
    if not isinstance(eps, (int, float)) or eps < 0:
        raise ValueError(f"eps: expected a non-negative number, got {eps!r}")
    t = _element(q.dtype)
    three, two = _tensor(3, t), _tensor(2, t)
    sched = _schedule(schedule, chunk_size)

    def build():
        normalizer = ""
        result = "%num"
        if normalize:
            normalizer = f"""
  %den = recurrence.scan identity{sched} input(%fk : {three})
      readout(%fq : {three}) -> {two}
  %ey = tensor.empty(%b, %t, %dv) : {three}
  %y = linalg.generic {{indexing_maps = [{_maps("(b, t, d) -> (b, t, d)", "(b, t, d) -> (b, t)", "(b, t, d) -> (b, t, d)")}],
      iterator_types = ["parallel", "parallel", "parallel"]}}
      ins(%num, %den : {three}, {two}) outs(%ey : {three}) {{
    ^bb0(%x: {t}, %s: {t}, %unused: {t}):
      %floor = arith.maximumf %s, %eps : {t}
      %r = arith.divf %x, %floor : {t}
      linalg.yield %r : {t}
  }} -> {three}"""
            result = "%y"
        return f"""
func.func @model(%q: {three}, %k: {three}, %v: {three}, %eps: {t}) -> {three} {{
  {_dims("q", three, ["b", "t", "n"])}
  %c2v = arith.constant 2 : index
  %dv = tensor.dim %v, %c2v : {three}
  {_feature_map("q", "fq", t, three, feature_map)}
  {_feature_map("k", "fk", t, three, feature_map)}
  %num = recurrence.scan identity{sched} matrix
      factored_input(%fk, %v : {three}, {three})
      readout(%fq : {three}) -> {three}{normalizer}
  return {result} : {three}
}}"""

    # eps is a runtime scalar: pass it as a 0-d tensor would need another
    # calling convention, so it is baked into the compiled variant instead.
    key = ("linear_attention", feature_map, normalize, t, sched, float(eps))
    compiled = _cache.get(key)
    if compiled is None:
        text = build().replace(f", %eps: {t}", "").replace(
            "  %floor = arith.maximumf %s, %eps",
            f"  %epsc = arith.constant {float(eps):e} : {t}\n"
            f"      %floor = arith.maximumf %s, %epsc")
        compiled = api.compile(text, "model")
        _cache[key] = compiled
    qf, batch = _flatten_batch("q", q, 2)
    kf = k.reshape(qf.shape)
    vf = v.reshape(qf.shape[:2] + v.shape[-1:])
    return _outputs(compiled, [qf, kf, vf], [vf.shape], [v.shape], [out])


def delta_rule(q, k, v, beta, *, gate=None, init=None,
               return_final_state=False, schedule="auto", chunk_size=None,
               out=None, final_state_out=None):
    """(Gated) delta rule: S_t = g_t S_{t-1} + b_t k_t (v_t - k_t^T g_t
    S_{t-1})^T, y_t = S_t^T q_t, as dplr<1> with d = g, U = -g b k, V = k and
    input (b k) v^T. q, k: [..., T, dk]; v: [..., T, dv]; beta, gate:
    [..., T]; init: [..., dk, dv]. Returns y [..., T, dv] (and S_T)."""
    q = as_float_array("q", q)
    k = as_float_array("k", k, q.dtype)
    v = as_float_array("v", v, q.dtype)
    beta = as_float_array("beta", beta, q.dtype)
    check_rank("q", q, 2, "[..., T, dk]")
    check_shape("k", k, q.shape)
    check_shape("v", v, q.shape[:-1] + v.shape[-1:])
    check_shape("beta", beta, q.shape[:-1])
    if gate is not None:
        gate = as_float_array("gate", gate, q.dtype)
        check_shape("gate", gate, q.shape[:-1])
    dk, dv = q.shape[-1], v.shape[-1]
    if init is not None:
        init = as_float_array("init", init, q.dtype)
        check_shape("init", init, q.shape[:-2] + (dk, dv))
    t = _element(q.dtype)
    three, two, four = _tensor(3, t), _tensor(2, t), _tensor(4, t, {3: 1})
    sched = _schedule(schedule, chunk_size)
    gated = gate is not None

    def build():
        g_arg = f", %g: {two}" if gated else ""
        g_in = ", %g" if gated else ""
        g_ty = f", {two}" if gated else ""
        g_map = ', "(b, t, n) -> (b, t)"'.replace('"', "") if gated else ""
        init_arg = f", %init: {three}" if init is not None else ""
        init_use = f" init(%init : {three})" if init is not None else ""
        results = three + (f", {three}" if return_final_state else "")
        names = "%y, %last" if return_final_state else "%y"
        gate_value = "%gv" if gated else "%one"
        gv = "^bb0(%bv: {t}, %kv: {t}, %gv: {t}, %unused: {t}):".format(
            t=t) if gated else "^bb0(%bv: {t}, %kv: {t}, %unused: {t}):".format(
                t=t)
        maps3 = _maps("(b, t, n) -> (b, t)", "(b, t, n) -> (b, t, n)",
                      *(["(b, t, n) -> (b, t)"] if gated else []),
                      "(b, t, n) -> (b, t, n)")
        return f"""
func.func @model(%q: {three}, %k: {three}, %v: {three}, %beta: {two}{g_arg}{init_arg}) -> ({results}) {{
  {_dims("k", three, ["b", "t", "n"])}
  %e = tensor.empty(%b, %t, %n) : {three}
  %d = linalg.generic {{indexing_maps = [{maps3}],
      iterator_types = ["parallel", "parallel", "parallel"]}}
      ins(%beta, %k{g_in} : {two}, {three}{g_ty}) outs(%e : {three}) {{
    {gv}
      %one = arith.constant 1.0 : {t}
      linalg.yield {gate_value} : {t}
  }} -> {three}
  %u = linalg.generic {{indexing_maps = [{maps3}],
      iterator_types = ["parallel", "parallel", "parallel"]}}
      ins(%beta, %k{g_in} : {two}, {three}{g_ty}) outs(%e : {three}) {{
    {gv}
      %one = arith.constant 1.0 : {t}
      %bk = arith.mulf %bv, %kv : {t}
      %gbk = arith.mulf {gate_value}, %bk : {t}
      %neg = arith.negf %gbk : {t}
      linalg.yield %neg : {t}
  }} -> {three}
  %key = linalg.generic {{indexing_maps = [{_maps("(b, t, n) -> (b, t)", "(b, t, n) -> (b, t, n)", "(b, t, n) -> (b, t, n)")}],
      iterator_types = ["parallel", "parallel", "parallel"]}}
      ins(%beta, %k : {two}, {three}) outs(%e : {three}) {{
    ^bb0(%bv: {t}, %kv: {t}, %unused: {t}):
      %bk = arith.mulf %bv, %kv : {t}
      linalg.yield %bk : {t}
  }} -> {three}
  %U = tensor.expand_shape %u [[0], [1], [2, 3]] output_shape [%b, %t, %n, 1] : {three} into {four}
  %V = tensor.expand_shape %k [[0], [1], [2, 3]] output_shape [%b, %t, %n, 1] : {three} into {four}
  {names} = recurrence.scan dplr<1>{sched} matrix
      transition(%d, %U, %V : {three}, {four}, {four})
      factored_input(%key, %v : {three}, {three}){init_use}
      readout(%q : {three}) -> {results}
  return {names} : {results}
}}"""

    compiled = _compiled(("delta_rule", gated, init is not None,
                          return_final_state, sched, t), build)
    qf, batch = _flatten_batch("q", q, 2)
    kf = k.reshape(qf.shape)
    vf = v.reshape(qf.shape[:2] + (dv,))
    args = [qf, kf, vf, beta.reshape(qf.shape[:2])]
    if gated:
        args.append(gate.reshape(qf.shape[:2]))
    if init is not None:
        args.append(init.reshape((-1, dk, dv)))
    return _outputs(compiled, args, [vf.shape, (qf.shape[0], dk, dv)],
                    [v.shape, batch + (dk, dv)],
                    _final_outs(out, final_state_out, return_final_state))


def selective_ssm(x, delta, A, B, C, D=None, *, init=None,
                  return_final_state=False, schedule="auto", chunk_size=None,
                  out=None, final_state_out=None):
    """Mamba's selective SSM: h_t[n, d] = exp(delta_t[d] A[d, n]) h_{t-1}[n, d]
    + delta_t[d] B_t[n] x_t[d]; y_t[d] = sum_n C_t[n] h_t[n, d] + D[d] x_t[d].

    x, delta: [..., T, Dm]; A: [Dm, N]; B, C: [..., T, N]; D: [Dm];
    init: [..., N, Dm]. Returns y [..., T, Dm] (and h_T [..., N, Dm]).
    """
    x = as_float_array("x", x)
    delta = as_float_array("delta", delta, x.dtype)
    A = as_float_array("A", A, x.dtype)
    B = as_float_array("B", B, x.dtype)
    C = as_float_array("C", C, x.dtype)
    check_rank("x", x, 2, "[..., T, Dm]")
    check_shape("delta", delta, x.shape)
    check_rank("A", A, 2, "[Dm, N]")
    dm, n = x.shape[-1], A.shape[-1]
    check_shape("A", A, (dm, n))
    check_shape("B", B, x.shape[:-1] + (n,))
    check_shape("C", C, x.shape[:-1] + (n,))
    if D is not None:
        D = as_float_array("D", D, x.dtype)
        check_shape("D", D, (dm,))
    if init is not None:
        init = as_float_array("init", init, x.dtype)
        check_shape("init", init, x.shape[:-2] + (n, dm))
    t = _element(x.dtype)
    three, two, four = _tensor(3, t), _tensor(2, t), _tensor(4, t)
    sched = _schedule(schedule, chunk_size)

    def build():
        d_arg = f", %D: {_tensor(1, t)}" if D is not None else ""
        init_arg = f", %init: {three}" if init is not None else ""
        init_use = f" init(%init : {three})" if init is not None else ""
        results = three + (f", {three}" if return_final_state else "")
        names = "%y, %last" if return_final_state else "%y"
        skip, out = "", "%y"
        if D is not None:
            skip = f"""
  %ey = tensor.empty(%b, %t, %dm) : {three}
  %out = linalg.generic {{indexing_maps = [{_maps("(b, t, d) -> (b, t, d)", "(b, t, d) -> (d)", "(b, t, d) -> (b, t, d)", "(b, t, d) -> (b, t, d)")}],
      iterator_types = ["parallel", "parallel", "parallel"]}}
      ins(%y, %D, %x : {three}, {_tensor(1, t)}, {three}) outs(%ey : {three}) {{
    ^bb0(%yv: {t}, %dv: {t}, %xv: {t}, %unused: {t}):
      %m = arith.mulf %dv, %xv : {t}
      %s = arith.addf %yv, %m : {t}
      linalg.yield %s : {t}
  }} -> {three}"""
            out = "%out"
        returned = out + (", %last" if return_final_state else "")
        return f"""
func.func @model(%x: {three}, %delta: {three}, %A: {two}, %B: {three}, %C: {three}{d_arg}{init_arg}) -> ({results}) {{
  {_dims("x", three, ["b", "t", "dm"])}
  %c1n = arith.constant 1 : index
  %n = tensor.dim %A, %c1n : {two}
  %ea = tensor.empty(%b, %t, %n, %dm) : {four}
  %a = linalg.generic {{indexing_maps = [{_maps("(b, t, n, d) -> (b, t, d)", "(b, t, n, d) -> (d, n)", "(b, t, n, d) -> (b, t, n, d)")}],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}}
      ins(%delta, %A : {three}, {two}) outs(%ea : {four}) {{
    ^bb0(%dt: {t}, %av: {t}, %unused: {t}):
      %p = arith.mulf %dt, %av : {t}
      %g = math.exp %p : {t}
      linalg.yield %g : {t}
  }} -> {four}
  %dx = arith.mulf %delta, %x : {three}
  {names} = recurrence.scan diagonal{sched} matrix
      transition(%a : {four})
      factored_input(%B, %dx : {three}, {three}){init_use}
      readout(%C : {three}) -> {results}{skip}
  return {returned} : {results}
}}"""

    compiled = _compiled(("selective_ssm", D is not None, init is not None,
                          return_final_state, sched, t), build)
    xf, batch = _flatten_batch("x", x, 2)
    args = [xf, delta.reshape(xf.shape), A, B.reshape(xf.shape[:2] + (n,)),
            C.reshape(xf.shape[:2] + (n,))]
    if D is not None:
        args.append(D)
    if init is not None:
        args.append(init.reshape((-1, n, dm)))
    return _outputs(compiled, args, [xf.shape, (xf.shape[0], n, dm)],
                    [x.shape, batch + (n, dm)],
                    _final_outs(out, final_state_out, return_final_state))

"""The adjoint of a scan, derived as recurrence IR.

For h_t = A_t h_{t-1} + b_t (t = 1..T, h_0 = init) and cotangents G_t of
the states (or of a readout y_t = C_t^T h_t, so G_t = C_t ybar_t^T) and F of
the final state, the adjoint states

    lambda_t = A_{t+1}^T lambda_{t+1} + G_t,   lambda_T = G_T + F

are themselves a linear recurrence, run in reverse with the transitions
transposed and shifted one step, so they go through the same compiler as the
forward scan. The gradients follow from them:

    db_t = lambda_t                 dA_t = P_A(lambda_t h_{t-1}^T)
    dinit = A_1^T lambda_1          dC_t = h_t ybar_t

where P_A keeps the entries the structure has (a sum for a scalar, the
diagonal, the blocks, d / U / V of a dplr transition). A higher_order scan's
adjoint is a higher_order scan whose lag-i coefficient at t is the one of
step t + i.

``adjoint_module`` emits one function, ``@adjoint``, that recomputes the
states with a forward scan and returns every gradient. It covers the
canonical form (one batch dim, a matrix state, forward in time); ``vjp``
reduces every other call to it by reshaping and flipping time.
"""

import numpy as np

from . import api
from .models import _tensor

_cache = {}


class _Emitter:
    """Builds the body of one function, line by line."""

    def __init__(self, t):
        self.t = t
        self.lines = []
        self.count = 0

    def name(self, hint):
        self.count += 1
        return f"%{hint}{self.count}"

    def emit(self, line):
        self.lines.append("  " + line)

    def tensor(self, rank, static=None):
        return _tensor(rank, self.t, static)

    def const(self, value):
        name = self.name("c")
        self.emit(f"{name} = arith.constant {value} : index")
        return name

    def zero(self, sizes, type_):
        """A zero-filled tensor of `type_` with dynamic `sizes`."""
        empty, zero, filled = (self.name("e"), self.name("z"),
                               self.name("zero"))
        self.emit(f"{empty} = tensor.empty({', '.join(sizes)}) : {type_}")
        self.emit(f"{zero} = arith.constant 0.0 : {self.t}")
        self.emit(f"{filled} = linalg.fill ins({zero} : {self.t}) "
                  f"outs({empty} : {type_}) -> {type_}")
        return filled

    def generic(self, dims, ins, out, body, reductions=()):
        """linalg.generic over loops `dims` (their names); `ins` and `out`
        are (value, type, indices) with indices a list of loop names; `body`
        gets the block arguments' names and the index values of the loops,
        and returns (lines, yielded value)."""
        maps = ", ".join(
            f"affine_map<({', '.join(dims)}) -> ({', '.join(idx)})>"
            for _, _, idx in list(ins) + [out])
        iterators = ", ".join(
            '"reduction"' if d in reductions else '"parallel"' for d in dims)
        args = [self.name("x") for _ in ins] + [self.name("acc")]
        index = {d: self.name(f"i{d}") for d in dims}
        lines, result = body(args, index)
        ins_text = (f"ins({', '.join(v for v, _, _ in ins)} : "
                    f"{', '.join(ty for _, ty, _ in ins)}) ") if ins else ""
        name = self.name("g")
        block = ", ".join(f"{a}: {self.t}" for a in args)
        self.emit(f"{name} = linalg.generic {{indexing_maps = [{maps}], "
                  f"iterator_types = [{iterators}]}} {ins_text}"
                  f"outs({out[0]} : {out[1]}) {{")
        self.emit(f"^bb0({block}):")
        for i, d in enumerate(dims):
            self.emit(f"  {index[d]} = linalg.index {i} : index")
        for line in lines:
            self.emit("  " + line)
        self.emit(f"  linalg.yield {result} : {self.t}")
        self.emit(f"}} -> {out[1]}")
        return name


def _mul_sum(e):
    """Body: acc + x * y, the two inputs times each other."""
    def body(args, index):
        p, s = e.name("p"), e.name("s")
        x, y, acc = args[0], args[1], args[2]
        return [f"{p} = arith.mulf {x}, {y} : {e.t}",
                f"{s} = arith.addf {acc}, {p} : {e.t}"], s
    return body


def _gather(e, source, type_, indices, valid):
    """Lines extracting source[indices] where `valid` (an i1), else 0."""
    value, zero, picked = e.name("v"), e.name("z"), e.name("w")
    return [f"{value} = tensor.extract {source}[{', '.join(indices)}] : "
            f"{type_}",
            f"{zero} = arith.constant 0.0 : {e.t}",
            f"{picked} = arith.select {valid}, {value}, {zero} : {e.t}"], picked


def _shifted_index(e, t, offset, limit):
    """Lines computing s = t + offset, whether s < limit, and s clamped."""
    s, ok, clamped, c0, cofs = (e.name("s"), e.name("ok"), e.name("sc"),
                                e.name("c"), e.name("c"))
    return [f"{cofs} = arith.constant {offset} : index",
            f"{s} = arith.addi {t}, {cofs} : index",
            f"{ok} = arith.cmpi ult, {s}, {limit} : index",
            f"{c0} = arith.constant 0 : index",
            f"{clamped} = arith.select {ok}, {s}, {c0} : index"], ok, clamped


def _transposed_shift(e, value, type_, rank, transpose, steps, offset,
                      lag_dim=None):
    """out[b, t, ...] = value[b, t + offset (+ lag), ...] with the last two
    dims swapped when `transpose`, 0 where the source step is past T."""
    dims = [f"d{i}" for i in range(rank)]
    dynamic = [size for size in _sizes(e, value, type_) if size[0] == "%"]
    empty = e.name("e")
    e.emit(f"{empty} = tensor.empty({', '.join(dynamic)}) : {type_}")

    def body(args, index):
        t = index["d1"]
        lines = []
        if lag_dim is not None:
            lag = e.name("lag")
            lines.append(f"{lag} = arith.addi {t}, {index[f'd{lag_dim}']} : "
                         f"index")
            t = lag
        more, ok, src = _shifted_index(e, t, offset, steps)
        lines += more
        idx = [index[d] for d in dims]
        idx[1] = src
        if transpose:
            idx[-1], idx[-2] = idx[-2], idx[-1]
        more, picked = _gather(e, value, type_, idx, ok)
        return lines + more, picked

    return e.generic(dims, [], (empty, type_, dims), body)


def _signature(spec, e):
    """The canonical operands: (name, type) pairs, in the scan's order."""
    s, p = spec["structure"], spec["param"]
    t2, t3, t4 = e.tensor(2), e.tensor(3), e.tensor(4)
    transition = {
        "identity": [],
        "scalar": [("a", t2)],
        "diagonal": [("a", t4 if spec["per_element"] else t3)],
        "block_diagonal": [("a", e.tensor(5, {3: p, 4: p}))],
        "dense": [("a", t4)],
        "dplr": [("d", t3), ("U", e.tensor(4, {3: p})),
                 ("V", e.tensor(4, {3: p}))],
        "higher_order": [("a", e.tensor(4, {2: p}))],
    }[s]
    inputs = ([("k", t3), ("v", t3)] if spec["factored"] else [("b", t4)])
    state = e.tensor(4, {1: p}) if s == "higher_order" else t3
    extra = ([("init", state)] if spec["init"] else []) + (
        [("C", t3)] if spec["readout"] else [])
    return transition, inputs, extra, state


def _scan_text(spec, transition, inputs, init, readout, reverse, result):
    """A recurrence.scan line (matrix state) writing `result`."""
    s, p = spec["structure"], spec["param"]
    name = s + (f"<{p}>" if s in ("block_diagonal", "dplr",
                                  "higher_order") else "")
    text = f"{result[0]} = recurrence.scan {name}"
    if spec.get("schedule", "auto") != "auto":
        text += f" schedule {spec['schedule']}"
        if spec["schedule"] == "chunked":
            text += f"<{spec['chunk_size']}>"
    text += " matrix"
    if reverse:
        text += " reverse"
    if transition:
        text += (f" transition({', '.join(v for v, _ in transition)} : "
                 f"{', '.join(t for _, t in transition)})")
    if len(inputs) == 2:
        text += (f" factored_input({inputs[0][0]}, {inputs[1][0]} : "
                 f"{inputs[0][1]}, {inputs[1][1]})")
    else:
        text += f" input({inputs[0][0]} : {inputs[0][1]})"
    if init:
        text += f" init({init[0]} : {init[1]})"
    if readout:
        text += f" readout({readout[0]} : {readout[1]})"
    return text + f" -> {result[1]}"


def adjoint_module(spec):
    """MLIR text of @adjoint for a canonical spec (see ``vjp``)."""
    t = "f64" if spec["f64"] else "f32"
    e = _Emitter(t)
    s, m = spec["structure"], spec["param"]
    transition, inputs, extra, state = _signature(spec, e)
    t2, t3, t4 = e.tensor(2), e.tensor(3), e.tensor(4)
    ho = s == "higher_order"
    gout_type = t3 if spec["readout"] else t4
    args = ([(f"%{n}", ty) for n, ty in transition + inputs + extra] +
            [("%gout", gout_type), ("%gfinal", state)])
    named = dict(args)
    first_input = inputs[0][0]

    # Sizes B, T, N, D.
    c0, c1, c2, c3 = e.const(0), e.const(1), e.const(2), e.const(3)
    B, T, N, D = "%B", "%T", "%N", "%D"
    e.emit(f"{B} = tensor.dim %gfinal, {c0} : {state}")
    e.emit(f"{N} = tensor.dim %gfinal, {c2 if ho else c1} : {state}")
    e.emit(f"{D} = tensor.dim %gfinal, {c3 if ho else c2} : {state}")
    e.emit(f"{T} = tensor.dim %{first_input}, {c1} : "
           f"{named['%' + first_input]}")

    # The states, recomputed.
    tr = [(f"%{n}", ty) for n, ty in transition]
    ins = [(f"%{n}", ty) for n, ty in inputs]
    init = ("%init", state) if spec["init"] else None
    e.emit(_scan_text(spec, tr, ins, init, None, False, ("%H", t4)))

    # Direct cotangents of the states, plus the final state's on the steps
    # it holds (the last one; the last m for higher_order).
    if spec["readout"]:
        zero4 = e.zero([B, T, N, D], t4)
        g = e.generic(["b", "t", "n", "d"],
                      [("%C", t3, ["b", "t", "n"]),
                       ("%gout", t3, ["b", "t", "d"])],
                      (zero4, t4, ["b", "t", "n", "d"]),
                      lambda a, i: ([f"%gm = arith.mulf {a[0]}, {a[1]} : {t}"],
                                    "%gm"))
    else:
        g = "%gout"
    held = m if ho else 1
    last = e.name("last")
    e.emit(f"{last} = arith.subi {T}, {c1} : index")
    empty4 = e.name("e")
    e.emit(f"{empty4} = tensor.empty({B}, {T}, {N}, {D}) : {t4}")

    def add_final(a, i):
        k, ok, kc = e.name("k"), e.name("ok"), e.name("kc")
        held_c = e.name("c")
        lines = [f"{k} = arith.subi {last}, {i['t']} : index",
                 f"{held_c} = arith.constant {held} : index",
                 f"{ok} = arith.cmpi ult, {k}, {held_c} : index",
                 f"{kc} = arith.select {ok}, {k}, {c0} : index"]
        idx = [i["b"], kc, i["n"], i["d"]] if ho else [i["b"], i["n"], i["d"]]
        more, picked = _gather(e, "%gfinal", state, idx, ok)
        total = e.name("gt")
        return lines + more + [f"{total} = arith.addf {a[0]}, {picked} : {t}"], \
            total

    gp = e.generic(["b", "t", "n", "d"], [(g, t4, ["b", "t", "n", "d"])],
                   (empty4, t4, ["b", "t", "n", "d"]), add_final)

    # The adjoint states: transitions transposed and shifted one step (for
    # higher_order, lag i shifted i + 1 steps), run in reverse.
    shifted = []
    for name, ty in transition:
        rank = len(ty[len("tensor<"):-1].split("x")) - 1
        transpose = s in ("block_diagonal", "dense")
        shifted.append((_transposed_shift(e, f"%{name}", ty, rank, transpose,
                                          T, 1, lag_dim=2 if ho else None),
                        ty))
    if s == "dplr":
        shifted = [shifted[0], shifted[2], shifted[1]]  # A^T = d + V U^T
    e.emit(_scan_text(spec, shifted, [(gp, t4)], None, None, True,
                      ("%L", t4)))

    # h_{t-1}: the previous state, init (or 0) at the first step.
    def previous(a, i):
        more, ok, src = [], e.name("ok"), e.name("src")
        prev, c1_ = e.name("pt"), e.name("c")
        more += [f"{c1_} = arith.constant 1 : index",
                 f"{ok} = arith.cmpi uge, {i['t']}, {c1_} : index",
                 f"{prev} = arith.subi {i['t']}, {c1_} : index",
                 f"{src} = arith.select {ok}, {prev}, {c0} : index"]
        lines, from_h = _gather(e, "%H", t4, [i["b"], src, i["n"], i["d"]], ok)
        more += lines
        if not spec["init"] or ho:
            return more, from_h
        first = e.name("first")
        more.append(f"{first} = arith.cmpi eq, {i['t']}, {c0} : index")
        lines, from_init = _gather(e, "%init", state,
                                   [i["b"], i["n"], i["d"]], first)
        both = e.name("hp")
        return more + lines + [f"{both} = arith.addf {from_h}, {from_init} : "
                               f"{t}"], both

    hp = None
    if not ho:
        empty_hp = e.name("e")
        e.emit(f"{empty_hp} = tensor.empty({B}, {T}, {N}, {D}) : {t4}")
        hp = e.generic(["b", "t", "n", "d"], [],
                       (empty_hp, t4, ["b", "t", "n", "d"]), previous)

    results = []
    L4 = ("%L", t4, ["b", "t", "n", "d"])
    HP = (hp, t4, ["b", "t", "n", "d"])
    # Transition gradients.
    if s == "scalar":
        out = e.zero([B, T], t2)
        results.append((e.generic(["b", "t", "n", "d"], [L4, HP],
                                  (out, t2, ["b", "t"]), _mul_sum(e),
                                  reductions=("n", "d")), t2))
    elif s == "diagonal" and spec["per_element"]:
        out = e.zero([B, T, N, D], t4)
        results.append((e.generic(["b", "t", "n", "d"], [L4, HP],
                                  (out, t4, ["b", "t", "n", "d"]),
                                  _mul_sum(e)), t4))
    elif s in ("diagonal", "dplr"):
        out = e.zero([B, T, N], t3)
        results.append((e.generic(["b", "t", "n", "d"], [L4, HP],
                                  (out, t3, ["b", "t", "n"]),
                                  _mul_sum(e), reductions=("d",)), t3))
    elif s == "dense":
        out = e.zero([B, T, N, N], t4)
        results.append((e.generic(
            ["b", "t", "i", "j", "d"],
            [("%L", t4, ["b", "t", "i", "d"]), (hp, t4, ["b", "t", "j", "d"])],
            (out, t4, ["b", "t", "i", "j"]), _mul_sum(e),
            reductions=("d",)), t4))
    elif s == "block_diagonal":
        H_ = e.name("H")
        e.emit(f"{H_} = tensor.dim %a, {c2} : {transition[0][1]}")
        t5 = e.tensor(5, {3: m})
        blocks = []
        for value in ("%L", hp):
            x = e.name("blk")
            e.emit(f"{x} = tensor.expand_shape {value} [[0], [1], [2, 3], [4]] "
                   f"output_shape [{B}, {T}, {H_}, {m}, {D}] : {t4} into {t5}")
            blocks.append(x)
        ta = transition[0][1]
        out = e.zero([B, T, H_], ta)
        results.append((e.generic(
            ["b", "t", "h", "i", "j", "d"],
            [(blocks[0], t5, ["b", "t", "h", "i", "d"]),
             (blocks[1], t5, ["b", "t", "h", "j", "d"])],
            (out, ta, ["b", "t", "h", "i", "j"]), _mul_sum(e),
            reductions=("d",)), ta))
    elif ho:
        ta = transition[0][1]
        out = e.zero([B, T, N], ta)

        def lagged(a, i):
            # sum_d lambda_t[n, d] h_{t-1-lag}[n, d]; h before step 1 is init.
            # The source step t - i - 1 exists when i < t; the index is
            # clamped to 0 otherwise, before it is used.
            ok, src, prev, c1_ = (e.name("ok"), e.name("src"), e.name("pv"),
                                  e.name("c"))
            lines = [f"{c1_} = arith.constant 1 : index",
                     f"{ok} = arith.cmpi ult, {i['i']}, {i['t']} : index",
                     f"{prev} = arith.subi {i['t']}, {i['i']} : index",
                     f"{prev}m = arith.subi {prev}, {c1_} : index",
                     f"{src} = arith.select {ok}, {prev}m, {c0} : index"]
            more, from_h = _gather(e, "%H", t4, [i["b"], src, i["n"], i["d"]],
                                   ok)
            lines += more
            value = from_h
            if spec["init"]:
                # init[j] = h_{-j}: j = i - t when i >= t.
                j, in_init, jc = e.name("j"), e.name("ok"), e.name("jc")
                lines += [f"{j} = arith.subi {i['i']}, {i['t']} : index",
                          f"{in_init} = arith.cmpi uge, {i['i']}, {i['t']} : "
                          f"index",
                          f"{jc} = arith.select {in_init}, {j}, {c0} : index"]
                more, from_init = _gather(e, "%init", state,
                                          [i["b"], jc, i["n"], i["d"]],
                                          in_init)
                lines += more
                value = e.name("hv")
                lines.append(f"{value} = arith.addf {from_h}, {from_init} : "
                             f"{t}")
            p, total = e.name("p"), e.name("sum")
            lines += [f"{p} = arith.mulf {a[0]}, {value} : {t}",
                      f"{total} = arith.addf {a[1]}, {p} : {t}"]
            return lines, total

        results.append((e.generic(["b", "t", "i", "n", "d"],
                                  [("%L", t4, ["b", "t", "n", "d"])],
                                  (out, ta, ["b", "t", "i", "n"]), lagged,
                                  reductions=("d",)), ta))
    if s == "dplr":
        r = m
        tr_ = e.tensor(4, {3: r})
        for first, second in (("%V", hp), ("%U", "%L")):
            # P[b, t, k, d] = sum_j first[b, t, j, k] second[b, t, j, d]
            zp = e.zero([B, T, D], e.tensor(4, {2: r}))
            proj = e.generic(["b", "t", "k", "d", "j"],
                             [(first, tr_, ["b", "t", "j", "k"]),
                              (second, t4, ["b", "t", "j", "d"])],
                             (zp, e.tensor(4, {2: r}), ["b", "t", "k", "d"]),
                             _mul_sum(e), reductions=("j",))
            other = "%L" if first == "%V" else hp
            zu = e.zero([B, T, N], tr_)
            results.append((e.generic(
                ["b", "t", "n", "k", "d"],
                [(other, t4, ["b", "t", "n", "d"]),
                 (proj, e.tensor(4, {2: r}), ["b", "t", "k", "d"])],
                (zu, tr_, ["b", "t", "n", "k"]), _mul_sum(e),
                reductions=("d",)), tr_))
    # Input gradients.
    if spec["factored"]:
        zk = e.zero([B, T, N], t3)
        results.append((e.generic(["b", "t", "n", "d"],
                                  [L4, ("%v", t3, ["b", "t", "d"])],
                                  (zk, t3, ["b", "t", "n"]), _mul_sum(e),
                                  reductions=("d",)), t3))
        zv = e.zero([B, T, D], t3)
        results.append((e.generic(["b", "t", "n", "d"],
                                  [L4, ("%k", t3, ["b", "t", "n"])],
                                  (zv, t3, ["b", "t", "d"]), _mul_sum(e),
                                  reductions=("n",)), t3))
    else:
        results.append(("%L", t4))
    # The initial state's gradient.
    if spec["init"] and not ho:
        # A_1^T lambda_1: one step of the transposed scan from lambda_1.
        first_tr = []
        for name, ty in transition:
            rank = len(ty[len("tensor<"):-1].split("x")) - 1
            transpose = s in ("block_diagonal", "dense")
            full = _transposed_shift(e, f"%{name}", ty, rank, transpose, T, 0)
            first_tr.append((_step_slice(e, full, ty, rank), ty))
        if s == "dplr":
            first_tr = [first_tr[0], first_tr[2], first_tr[1]]
        lam1 = _step_slice(e, "%L", t4, 4)
        lam_state = e.name("l1")
        e.emit(f"{lam_state} = tensor.collapse_shape {lam1} [[0, 1], [2], [3]]"
               f" : {t4} into {t3}")
        zeros = e.zero([B, c1, N, D], t4)
        step = e.name("step")
        e.emit(_scan_text(spec, first_tr, [(zeros, t4)], (lam_state, t3),
                          None, False, (step, t4)))
        dinit = e.name("dinit")
        e.emit(f"{dinit} = tensor.collapse_shape {step} [[0, 1], [2], [3]] : "
               f"{t4} into {t3}")
        results.append((dinit, t3))
    elif spec["init"]:
        # init[j] = h_{-j} enters step s (s < m - j) through lag s + j; the
        # final state holds init[j] itself when T <= j ... (j + T < m).
        held_c = e.const(m)
        range_ = e.name("range")
        e.emit(f"{range_} = tensor.empty() : tensor<{m}x{t}>")
        out = e.zero([B, N, D], state)

        def into_init(a, i):
            lines = []
            st, ok, ok2, okt, both, stc = (e.name("st"), e.name("ok"),
                                           e.name("ok"), e.name("ok"),
                                           e.name("ok"), e.name("stc"))
            lag, lagc = e.name("lag"), e.name("lagc")
            lines += [f"{lag} = arith.addi {i['s']}, {i['j']} : index",
                      f"{ok} = arith.cmpi ult, {lag}, {held_c} : index",
                      f"{okt} = arith.cmpi ult, {i['s']}, {T} : index",
                      f"{both} = arith.andi {ok}, {okt} : i1",
                      f"{stc} = arith.select {both}, {i['s']}, {c0} : index",
                      f"{lagc} = arith.select {both}, {lag}, {c0} : index"]
            more, coef = _gather(e, "%a", transition[0][1],
                                 [i["b"], stc, lagc, i["n"]], both)
            lines += more
            more, lam = _gather(e, "%L", t4, [i["b"], stc, i["n"], i["d"]],
                                both)
            lines += more
            # The final state's cotangent, once (at s = 0).
            k, okk, okf, kc = (e.name("k"), e.name("ok"), e.name("ok"),
                               e.name("kc"))
            lines += [f"{k} = arith.addi {i['j']}, {T} : index",
                      f"{okk} = arith.cmpi ult, {k}, {held_c} : index",
                      f"{okf} = arith.cmpi eq, {i['s']}, {c0} : index",
                      f"{ok2} = arith.andi {okk}, {okf} : i1",
                      f"{kc} = arith.select {ok2}, {k}, {c0} : index"]
            more, direct = _gather(e, "%gfinal", state,
                                   [i["b"], kc, i["n"], i["d"]], ok2)
            lines += more
            p, q, total = e.name("p"), e.name("q"), e.name("sum")
            lines += [f"{p} = arith.mulf {coef}, {lam} : {t}",
                      f"{q} = arith.addf {p}, {direct} : {t}",
                      f"{total} = arith.addf {a[1]}, {q} : {t}"]
            return lines, total

        results.append((e.generic(["b", "j", "n", "d", "s"],
                                  [(range_, f"tensor<{m}x{t}>", ["s"])],
                                  (out, state, ["b", "j", "n", "d"]),
                                  into_init, reductions=("s",)), state))
    # The readout's gradient: dC_t = h_t ybar_t.
    if spec["readout"]:
        zc = e.zero([B, T, N], t3)
        results.append((e.generic(["b", "t", "n", "d"],
                                  [("%H", t4, ["b", "t", "n", "d"]),
                                   ("%gout", t3, ["b", "t", "d"])],
                                  (zc, t3, ["b", "t", "n"]), _mul_sum(e),
                                  reductions=("d",)), t3))

    signature = ", ".join(f"{n}: {ty}" for n, ty in args)
    result_types = ", ".join(ty for _, ty in results)
    body = "\n".join(e.lines)
    return (f"func.func @adjoint({signature}) -> ({result_types}) {{\n{body}\n"
            f"  return {', '.join(v for v, _ in results)} : {result_types}\n}}")


def _sizes(e, value, type_):
    """The sizes of `value`: literals for static dims, tensor.dim values for
    dynamic ones."""
    sizes = []
    for i, size in enumerate(type_[len("tensor<"):-1].split("x")[:-1]):
        if size != "?":
            sizes.append(size)
            continue
        ci = e.const(i)
        name = e.name("n")
        e.emit(f"{name} = tensor.dim {value}, {ci} : {type_}")
        sizes.append(name)
    return sizes


def _step_slice(e, value, type_, rank):
    """value[:, 0:1, ...]: the first step, keeping the (dynamic) time dim."""
    sizes = _sizes(e, value, type_)
    sizes[1] = e.const(1)
    name = e.name("first")
    offsets = ", ".join(["0"] * rank)
    strides = ", ".join(["1"] * rank)
    e.emit(f"{name} = tensor.extract_slice {value}[{offsets}] "
           f"[{', '.join(sizes)}] [{strides}] : {type_} to {type_}")
    return name


def compiled_adjoint(spec):
    """The compiled @adjoint of a canonical spec, cached."""
    key = tuple(sorted(spec.items()))
    compiled = _cache.get(key)
    if compiled is None:
        compiled = api.compile(adjoint_module(spec), "adjoint")
        _cache[key] = compiled
    return compiled


def _roles(spec):
    """The role of each scan operand, in order."""
    transitions = {"identity": 0, "dplr": 3}.get(spec["structure"], 1)
    return (["transition"] * transitions +
            (["key", "value"] if spec["factored"] else ["input"]) +
            (["init"] if spec["init"] else []) +
            (["readout"] if spec["readout"] else []))


def vjp(spec, sizes, operands, gout, gfinal=None):
    """Gradients of ``scan`` with `spec` (as ``api.scan`` builds it) at
    `operands` (in the scan's operand order) for the cotangent `gout` of its
    result and `gfinal` of its final state (None: zero). Returns one array
    per operand, shaped like it."""
    dtype = np.float64 if spec["f64"] else np.float32
    rank = spec["batch_rank"]
    batch = int(np.prod(sizes["batch"], dtype=np.int64))
    steps, size, columns = sizes["steps"], sizes["size"], sizes["columns"]
    ho = spec["structure"] == "higher_order"
    roles = _roles(spec)
    vector = not spec["matrix"]
    state = ((spec["param"],) if ho else ()) + (size, columns)

    def canonical(array, role):
        array = np.asarray(array, dtype=dtype)
        array = array.reshape((batch,) + array.shape[rank:])
        if vector and role in ("input", "init", "gout", "gfinal"):
            array = array[..., None]
        if spec["reverse"] and role not in ("init", "gfinal"):
            array = array[:, ::-1]
        return np.ascontiguousarray(array)

    if gfinal is None:
        gfinal = np.zeros((batch,) + state, dtype)
    else:
        gfinal = canonical(gfinal, "gfinal")
    gout = canonical(gout, "gout")
    if spec["readout"] and vector:
        gout = gout.reshape(batch, steps, 1)
    arrays = [canonical(x, role) for x, role in zip(operands, roles)]

    if 0 in (batch, steps, size, columns):
        grads = [np.zeros(x.shape, dtype) for x in arrays]
        if spec["init"] and steps == 0:
            grads[roles.index("init")] = gfinal.reshape(
                grads[roles.index("init")].shape)
    else:
        canon = dict(structure=spec["structure"], param=spec["param"],
                     schedule=spec["schedule"],
                     chunk_size=spec["chunk_size"],
                     per_element=spec["per_element"],
                     factored=spec["factored"], init=spec["init"],
                     readout=spec["readout"], f64=spec["f64"])
        result = compiled_adjoint(canon)(
            *arrays, gout, gfinal, result_shapes=[x.shape for x in arrays])
        grads = list(result) if isinstance(result, tuple) else [result]
    out = []
    for grad, operand, role in zip(grads, operands, roles):
        if spec["reverse"] and role != "init":
            grad = grad[:, ::-1]
        out.append(np.ascontiguousarray(grad).reshape(np.shape(operand)))
    return out

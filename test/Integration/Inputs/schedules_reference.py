#!/usr/bin/python3
"""Float64 reference model of recurrence.scan for the schedules-*.mlir tests.

The model (`scan`) is written from the op's documented equations only
(RecurrenceOps.td), not from the lowerings: it steps h_t = A_t h_{t-1} + b_t
one t at a time, in float64. The CASES below hold the inputs of every
execution test in test/Integration/schedules-*.mlir;

  /usr/bin/python3 schedules_reference.py [schedules-diagonal ...]

prints, for every case, the CHECK lines of printMemrefF32's output. It also
asserts that every printed value is exact in f32 and prints exactly with 6
significant digits, and that every case can fail: each schedule's expected
output is recomputed by a float64 simulation of that schedule's algorithm
(three-phase chunks, Blelloch up/down sweeps) with a typical bug injected
(the carry ignoring chunk products, no carry across chunks, no down-sweep,
init ignored, reverse ignored), and each such result must differ from the
expected one.
"""

import sys

import numpy as np

#===----------------------------------------------------------------------===#
# The model
#===----------------------------------------------------------------------===#


def _apply(structure, param, ops, h, per_element):
    """A_t h for one step; h is [N, D]."""
    if structure == "identity":
        return h
    if structure == "scalar":
        return ops[0] * h
    if structure == "diagonal":
        a = ops[0]
        return a * h if per_element else a[:, None] * h
    if structure == "block_diagonal":
        blocks, m = ops[0], param  # [N/m, m, m]
        hb = h.reshape(-1, m, h.shape[-1])
        return np.einsum("jik,jkd->jid", blocks, hb).reshape(h.shape)
    if structure == "dplr":
        d, u, v = ops  # [N], [N, r], [N, r]
        return (np.diag(d) + u @ v.T) @ h
    if structure == "dense":
        return ops[0] @ h
    raise ValueError(structure)


def _dims(b, k, v, matrix):
    source = b if b is not None else k
    steps, n = source.shape[0], source.shape[1]
    if k is not None:
        d = v.shape[1]
    elif matrix:
        d = b.shape[2]
    else:
        d = 1
    return steps, n, d


def _input_at(t, b, k, v, n, d):
    if k is not None:
        return np.outer(k[t], v[t])
    return np.asarray(b[t], dtype=np.float64).reshape(n, d)


def scan_one(structure, param, trans, b=None, k=None, v=None, init=None,
             readout=None, reverse=False, matrix=False):
    """One batch element, operands with time first. Returns (output, final)
    in the op's layouts."""
    trans = [np.asarray(x, dtype=np.float64) for x in trans]
    steps, n, d = _dims(b, k, v, matrix)
    per_element = structure == "diagonal" and trans[0].ndim == 3
    order = param if structure == "higher_order" else 0
    is_matrix = matrix or k is not None

    if order:  # the m most recent states, newest first
        stack = np.zeros((order, n, d))
        if init is not None:
            stack = np.asarray(init, dtype=np.float64).reshape(order, n, d)
    else:
        h = np.zeros((n, d))
        if init is not None:
            h = np.asarray(init, dtype=np.float64).reshape(n, d)

    outs = [None] * steps
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        bt = _input_at(t, b, k, v, n, d)
        if order:
            a = trans[0][t]  # [m, N]: a[i] multiplies h_{t-1-i}
            h = bt + sum(a[i][:, None] * stack[i] for i in range(order))
            stack = np.concatenate([h[None], stack[:-1]])
        else:
            h = _apply(structure, param, [x[t] for x in trans], h,
                       per_element) + bt
        out = h
        if readout is not None:
            out = np.asarray(readout[t], dtype=np.float64) @ h  # [D]
        outs[t] = out if is_matrix else out[..., 0] if readout is None \
            else out[0]
    final = stack if order else h
    if not is_matrix:
        final = final[..., 0]
    return np.array(outs), final


def _per_batch(function, trans, batch_rank, kw):
    if batch_rank == 0:
        return function(trans, kw)
    count = len(kw["b"] if kw.get("b") is not None else kw["k"])
    results = [
        _per_batch(function, [x[i] for x in trans], batch_rank - 1,
                   {key: (val[i] if isinstance(val, np.ndarray) else val)
                    for key, val in kw.items()})
        for i in range(count)]
    return tuple(np.array([r[j] for r in results]) for j in range(2))


def scan(structure, param, trans, batch_rank, **kw):
    """The model over `batch_rank` leading batch dims of every operand."""
    return _per_batch(lambda tr, k: scan_one(structure, param, tr, **k),
                      trans, batch_rank, kw)

#===----------------------------------------------------------------------===#
# Simulations of the schedules, with injectable bugs (to show each case can
# fail). Transitions are densified: a state is [S, D] with S = N, or m N for
# the higher_order stack; per-element diagonals carry one matrix per column.
#===----------------------------------------------------------------------===#


def _dense_steps(structure, param, trans, steps, n, d):
    """A_t as [D, S, S] for every t."""
    mats = []
    for t in range(steps):
        ops = [np.asarray(x[t], dtype=np.float64) for x in trans]
        if structure == "higher_order":
            m = param
            a = np.zeros((m * n, m * n))
            for i in range(m):
                a[0:n, i * n:(i + 1) * n] = np.diag(ops[0][i])
            for r in range(1, m):
                a[r * n:(r + 1) * n, (r - 1) * n:r * n] = np.eye(n)
            mats.append(np.repeat(a[None], d, axis=0))
        elif structure == "diagonal" and ops[0].ndim == 2:
            mats.append(np.array([np.diag(ops[0][:, j]) for j in range(d)]))
        else:
            cols = [_apply(structure, param, ops, np.eye(n)[:, [j]], False)
                    for j in range(n)]
            mats.append(np.repeat(np.hstack(cols)[None], d, axis=0))
    return mats


def _mul(a, h):  # [D, S, S] x [S, D] -> [S, D]
    return np.stack([a[j] @ h[:, j] for j in range(h.shape[1])], axis=1)


def simulate_one(structure, param, trans, schedule, bugs, b=None, k=None,
                 v=None, init=None, readout=None, reverse=False,
                 matrix=False):
    steps, n, d = _dims(b, k, v, matrix)
    order = param if structure == "higher_order" else 1
    size = order * n
    if "forward" in bugs:
        reverse = False
    mats = _dense_steps(structure, param, trans, steps, n, d)
    inputs = []
    for t in range(steps):
        x = np.zeros((size, d))
        x[0:n] = _input_at(t, b, k, v, n, d)
        inputs.append(x)
    h0 = np.zeros((size, d))
    if init is not None and "no_init" not in bugs:
        h0 = np.asarray(init, dtype=np.float64).reshape(size, d)
    time = [steps - 1 - s for s in range(steps)] if reverse else list(
        range(steps))
    states = [None] * steps  # by logical step

    if schedule == "scan":
        pairs = [[mats[time[s]], inputs[time[s]].copy()] for s in range(steps)]
        if steps and "no_fold" not in bugs:
            pairs[0][1] = _mul(pairs[0][0], h0) + pairs[0][1]

        def combine(j, i):
            pj, bj = pairs[j]
            pi, bi = pairs[i]
            pairs[j] = [np.einsum("dij,djk->dik", pj, pi), _mul(pj, bi) + bj]
        s = 1
        while s < steps:
            for j in range(2 * s - 1, steps, 2 * s):
                combine(j, j - s)
            s *= 2
        if "no_down" not in bugs:
            while s >= 1:
                for j in range(3 * s - 1, steps, 2 * s):
                    combine(j, j - s)
                s //= 2
        states = [p[1] for p in pairs]
        final = states[-1] if steps else h0
    else:
        size_c = int(schedule.split("<")[1].rstrip(">"))
        chunks = [list(range(c, min(c + size_c, steps)))
                  for c in range(0, steps, size_c)]
        ends, prods = [], []
        for chunk in chunks:
            e, p = np.zeros((size, d)), np.repeat(np.eye(size)[None], d, 0)
            for s in chunk:
                e = _mul(mats[time[s]], e) + inputs[time[s]]
                p = np.einsum("dij,djk->dik", mats[time[s]], p)
            ends.append(e)
            prods.append(np.repeat(np.eye(size)[None], d, 0)
                         if "no_products" in bugs else p)
        h, starts = h0, []
        for c in range(len(chunks)):
            starts.append(h if c == 0 or "no_carry" not in bugs
                          else np.zeros((size, d)))
            h = _mul(prods[c], h) + ends[c]
        final = h
        for c, chunk in enumerate(chunks):
            h = starts[c]
            for s in chunk:
                h = _mul(mats[time[s]], h) + inputs[time[s]]
                states[s] = h
    outs = [None] * steps
    for s in range(steps):
        newest = states[s][0:n]
        out = newest
        if readout is not None:
            out = np.asarray(readout[time[s]], dtype=np.float64) @ newest
        outs[time[s]] = out
    is_matrix = matrix or k is not None
    if readout is None and not is_matrix:
        outs = [o[:, 0] for o in outs]
    elif readout is not None and not is_matrix:
        outs = [o[0] for o in outs]
    final = final.reshape(order, n, d) if structure == "higher_order" \
        else final
    if not is_matrix:
        final = final[..., 0]
    return np.array(outs), final


def simulate(structure, param, trans, batch_rank, schedule, bugs, **kw):
    return _per_batch(
        lambda tr, k: simulate_one(structure, param, tr, schedule, bugs, **k),
        trans, batch_rank, kw)

#===----------------------------------------------------------------------===#
# printMemrefF32's layout
#===----------------------------------------------------------------------===#


def fmt(x):
    text = "%g" % x
    assert float(text) == x, "not printed exactly: %r" % x
    assert float(np.float32(x)) == x, "not exact in f32: %r" % x
    return text


def check_lines(array):
    """The CHECK lines matching printMemrefF32's output for `array`."""
    array = np.asarray(array, dtype=np.float64)
    strides, s = [], 1
    for size in reversed(array.shape):
        strides.insert(0, s)
        s *= size
    # The offset is left open: a result may be a view into a larger buffer.
    lines = ["// CHECK: rank = %d offset = {{[0-9]+}} sizes = [%s] "
             "strides = [%s] data =" % (array.ndim,
                                       ", ".join(map(str, array.shape)),
                         ", ".join(map(str, strides)))]
    outer = array.shape[:-1]
    rows = array.reshape(-1, array.shape[-1])
    for r, row in enumerate(rows):
        idx = np.unravel_index(r, outer) if outer else ()
        opened = closed = 1
        for i in reversed(range(len(outer))):
            if idx[i] != 0:
                break
            opened += 1
        for i in reversed(range(len(outer))):
            if idx[i] != outer[i] - 1:
                break
            closed += 1
        text = "[" * opened + ", ".join(fmt(x) for x in row) + "]" * closed
        if r != len(rows) - 1:
            text += ","
        lines.append("// CHECK-NEXT{LITERAL}: " + text)
    return lines

#===----------------------------------------------------------------------===#
# The cases of every test
#===----------------------------------------------------------------------===#


def A(x):
    return np.array(x, dtype=np.float64)


class Case:
    """One recurrence.scan op, run under each of `schedules`."""

    def __init__(self, title, structure, param, trans, batch_rank, schedules,
                 final=False, **kw):
        self.title, self.structure, self.param = title, structure, param
        self.trans, self.batch_rank, self.schedules = trans, batch_rank, \
            schedules
        self.final, self.kw = final, kw

    def expected(self):
        out, fin = scan(self.structure, self.param, self.trans,
                        self.batch_rank, **self.kw)
        return [out, fin] if self.final else [out]

    def simulated(self, schedule, bugs=()):
        out, fin = simulate(self.structure, self.param, self.trans,
                            self.batch_rank, schedule, set(bugs), **self.kw)
        return [out, fin] if self.final else [out]

    def bugs(self, schedule):
        """The injected bugs that this schedule's run must be able to see."""
        steps = _dims(self.kw.get("b"), self.kw.get("k"), self.kw.get("v"),
                      self.kw.get("matrix", False))[0]
        bugs = []
        if schedule == "scan":
            bugs.append("no_down")
            if self.kw.get("init") is not None:
                bugs.append("no_fold")
        elif int(schedule.split("<")[1].rstrip(">")) < steps:
            bugs.append("no_carry")
            if self.structure != "identity":
                bugs.append("no_products")
        if self.kw.get("init") is not None:
            bugs.append("no_init")
        if self.kw.get("reverse"):
            bugs.append("forward")
        return bugs

    def verify(self):
        expected = self.expected()
        for schedule in self.schedules:
            same = self.simulated(schedule)
            assert all(np.array_equal(x, y) for x, y in zip(expected, same)), \
                (self.title, schedule, "simulation disagrees with the model")
            for bug in self.bugs(schedule):
                wrong = self.simulated(schedule, [bug])
                assert not all(np.array_equal(x, y)
                               for x, y in zip(expected, wrong)), \
                    (self.title, schedule, bug, "the bug goes unnoticed")
        return expected


# Diagonal: batch 2, T = 7, N = 2.
DIAG_A = A([[[0.5, 1], [2, -1], [1, 0.5], [0.5, 2], [2, 1], [-1, 0.5], [0.5, 1]],
            [[2, 0.5], [0.5, 0.5], [1, 2], [1, 0], [-1, 1], [2, 1], [0.5, -1]]])
DIAG_B = A([[[1, 0.5], [0, 1], [2, 0], [-1, 1], [0.5, -2], [1, 0], [0, 1]],
            [[1, 2], [1, 0], [0, 1], [0.5, 0], [0, 0.5], [1, -1], [-1, 0]]])
DIAG_INIT = A([[2, -1], [0.5, 4]])

# block_diagonal<2>: batch 1, T = 7, N = 4 (two 2 x 2 blocks per step).
BLOCK_A = A([[[[[0, 1], [1, 0]], [[0.5, 0], [0.25, 1]]],
              [[[1, 0], [0, 0.5]], [[1, 1], [0, 1]]],
              [[[1, 1], [0, 1]], [[0, -1], [1, 0]]],
              [[[0.5, 0], [0, 2]], [[1, 0], [0.5, 0.5]]],
              [[[0, 1], [-1, 0]], [[2, 0], [0, 0.5]]],
              [[[1, 0], [1, 1]], [[0.5, 0.5], [0, 1]]],
              [[[2, 0], [0, 1]], [[0, 1], [1, 0]]]]])
BLOCK_B = A([[[1, 0, 0, 1], [0, 1, 1, 0], [0.5, 0, 0, 0], [0, 0, 1, -1],
              [1, 1, 0, 0], [0, -1, 0.5, 0], [0, 0, 0, 1]]])
BLOCK_INIT = A([[1, 2, -1, 0.5]])

# higher_order<2>: batch 1, T = 7, N = 2; a_t = [a_1 per lane, a_2 per lane].
HO_A = A([[[[1, 0.5], [1, 0.5]], [[0.5, 1], [0.5, 0]], [[1, 0], [0, 1]],
           [[0.5, 1], [1, -0.5]], [[1, 0.5], [-1, 0.5]], [[0, 1], [1, 1]],
           [[1, 0.5], [0.5, 0]]]])
HO_B = A([[[1, 0], [0, 1], [0.5, 0], [0, 0], [1, -1], [0, 0.5], [-1, 0]]])
HO_INIT = A([[[2, 1], [-1, 0.5]]])  # [h_0, h_{-1}] (reverse: [h_8, h_9])

# dense: batch 2, T = 7, N = 2.
DENSE_A = A([[[[1, 1], [0, 1]], [[0, 1], [1, 0]], [[0.5, 0], [0.5, 1]],
              [[1, 0], [1, 1]], [[0, -1], [1, 0]], [[1, 0.5], [0, 0.5]],
              [[2, 0], [0, 1]]],
             [[[0, 1], [-1, 0]], [[1, 0], [0.5, 0.5]], [[1, 1], [0, 1]],
              [[0.5, 0], [0, 2]], [[1, 0], [1, 0]], [[0, 1], [1, 1]],
              [[1, -1], [0, 1]]]])
DENSE_B = A([[[1, 0], [0, 1], [1, 0], [0, 0], [0.5, 0], [0, 1], [1, 1]],
             [[0, 1], [1, 0], [0, 0], [1, 1], [0, -1], [0.5, 0], [0, 0]]])
DENSE_INIT = A([[1, -1], [0, 2]])

# dplr<1>: no batch dims, T = 7, N = 2: A_t = diag(d_t) + u_t v_t^T.
DPLR_D = A([[0.5, 1], [1, 0], [0, 0.5], [1, 1], [0.5, 0.5], [2, 0], [0, 1]])
DPLR_U = A([[[1], [0]], [[0], [1]], [[1], [1]], [[0.5], [0]], [[1], [-1]],
            [[0], [0.5]], [[1], [0]]])
DPLR_V = A([[[0], [1]], [[1], [0]], [[0.5], [0]], [[0], [1]], [[1], [0]],
            [[1], [1]], [[0], [-1]]])
DPLR_B = A([[1, 0], [0, 1], [1, 1], [0, 0], [-1, 0.5], [0, 0], [1, 0]])
DPLR_INIT = A([2, -1])

# Matrix state: batch 1, T = 7, N = 2, D = 3.
MAT_A = A([[[0.5, 1], [1, 0.5], [2, 1], [0.5, 0.5], [1, 2], [1, -1], [0.5, 1]]])
MAT_K = A([[[1, 0], [0, 1], [1, 1], [0, 0.5], [1, 0], [0, 1], [1, -1]]])
MAT_V = A([[[1, 0, 0.5], [0, 1, 0], [1, 1, 0], [2, 0, 1], [0, 0, 1],
            [1, 0, 0], [0, 0.5, 0]]])
MAT_C = A([[[1, 1], [0.5, 0], [0, 1], [1, -1], [1, 0.5], [0, 1], [1, 1]]])
MAT_INIT = A([[[1, 0, -1], [0.5, 2, 0]]])
# ... and a dense transition on the full N x D input.
MAT_DENSE = A([[[[0, 1], [1, 0]], [[1, 0], [0.5, 1]], [[1, 1], [0, 1]],
                [[0.5, 0], [0, 1]], [[1, 0], [-1, 1]], [[0, 1], [1, 0]],
                [[1, 0], [0, 0.5]]]])
MAT_B = A([[[[1, 0, 0], [0, 1, 0]], [[0, 0, 1], [1, 0, 0]],
            [[0, 0, 0], [0, 0, 1]], [[1, 1, 0], [0, 0, 0]],
            [[0, 0.5, 0], [0, 0, 0]], [[0, 0, 0], [1, 0, -1]],
            [[0, 0, 1], [0, 1, 0]]]])

# Two steps in one chunk: no batch dims, T = 2, N = 2, D = 2.
TWO_A = A([[2, 1], [0.5, -1]])
TWO_B = A([[[1, 2], [0, 1]], [[0.5, 1], [1, 0]]])
TWO_INIT = A([[1, -1], [2, 0.5]])

# Scalar: no batch dims, T = 7, N = 2.
SCALAR_A = A([0.5, 2, 1, -1, 0.5, 2, 1])
SCALAR_B = A([[1, 2], [0, 1], [1, 0], [0.5, 0.5], [2, 0], [0, -1], [1, 1]])
SCALAR_INIT = A([4, -2])

# Identity: batch 2, T = 7, N = 2, with a readout.
ID_B = A([[[1, 2], [3, 0.5], [0, 1], [-1, 0], [0.5, 0.5], [2, -1], [0, 4]],
          [[0, 1], [1, 1], [2, 0], [0, -2], [1, 0.5], [0.25, 0], [1, 1]]])
ID_C = A([[[1, 0], [0, 1], [1, 1], [0.5, 0], [0, 2], [1, -1], [1, 0]],
          [[0, 1], [1, 0], [1, 1], [0, 1], [2, 0], [1, 1], [0.5, 0.5]]])
ID_INIT = A([[1, 0], [-2, 0.5]])

ALL = ["chunked<3>", "chunked<8>", "scan"]
SHORT = ["chunked<3>", "scan"]

CASES = {
    "schedules-diagonal": [
        Case("forward from zeros", "diagonal", 0, [DIAG_A], 1, ALL,
             final=True, b=DIAG_B),
        Case("forward from init", "diagonal", 0, [DIAG_A], 1, SHORT,
             final=True, b=DIAG_B, init=DIAG_INIT),
        Case("reverse from init", "diagonal", 0, [DIAG_A], 1, ALL,
             final=True, b=DIAG_B, init=DIAG_INIT, reverse=True),
    ],
    "schedules-block-diagonal": [
        Case("forward from init", "block_diagonal", 2, [BLOCK_A], 1, ALL,
             final=True, b=BLOCK_B, init=BLOCK_INIT),
        Case("reverse from zeros", "block_diagonal", 2, [BLOCK_A], 1, SHORT,
             final=True, b=BLOCK_B, reverse=True),
    ],
    "schedules-higher-order": [
        Case("forward from init", "higher_order", 2, [HO_A], 1, ALL,
             final=True, b=HO_B, init=HO_INIT),
        Case("reverse from init", "higher_order", 2, [HO_A], 1, SHORT,
             final=True, b=HO_B, init=HO_INIT, reverse=True),
    ],
    "schedules-dense": [
        Case("forward from init", "dense", 0, [DENSE_A], 1, ALL,
             final=True, b=DENSE_B, init=DENSE_INIT),
        Case("reverse from zeros", "dense", 0, [DENSE_A], 1, SHORT,
             final=True, b=DENSE_B, reverse=True),
    ],
    "schedules-dplr": [
        Case("forward from init", "dplr", 1, [DPLR_D, DPLR_U, DPLR_V], 0,
             ["scan"], final=True, b=DPLR_B, init=DPLR_INIT),
        Case("reverse from init", "dplr", 1, [DPLR_D, DPLR_U, DPLR_V], 0,
             ["scan"], final=True, b=DPLR_B, init=DPLR_INIT, reverse=True),
    ],
    "schedules-dplr-chunked": [
        Case("forward from init", "dplr", 1, [DPLR_D, DPLR_U, DPLR_V], 0,
             ["chunked<3>", "chunked<8>"], final=True, b=DPLR_B,
             init=DPLR_INIT),
        Case("reverse from init", "dplr", 1, [DPLR_D, DPLR_U, DPLR_V], 0,
             ["chunked<3>"], final=True, b=DPLR_B, init=DPLR_INIT,
             reverse=True),
    ],
    "schedules-matrix": [
        Case("factored input, states", "diagonal", 0, [MAT_A], 1, ALL,
             final=True, k=MAT_K, v=MAT_V, matrix=True),
        Case("factored input, init, readout", "diagonal", 0, [MAT_A], 1, ALL,
             final=True, k=MAT_K, v=MAT_V, init=MAT_INIT, readout=MAT_C,
             matrix=True),
        Case("dense, full input, reverse, init, readout", "dense", 0,
             [MAT_DENSE], 1, SHORT, final=True, b=MAT_B, init=MAT_INIT,
             readout=MAT_C, reverse=True, matrix=True),
    ],
    "schedules-chunked-two-steps": [
        Case("diagonal, matrix state, from init", "diagonal", 0, [TWO_A], 0,
             ["chunked<2>"], final=True, b=TWO_B, init=TWO_INIT,
             matrix=True),
    ],
    "schedules-scalar": [
        Case("forward from zeros", "scalar", 0, [SCALAR_A], 0, ALL,
             final=True, b=SCALAR_B),
        Case("reverse from init", "scalar", 0, [SCALAR_A], 0, SHORT,
             final=True, b=SCALAR_B, init=SCALAR_INIT, reverse=True),
    ],
    "schedules-identity": [
        Case("prefix sums", "identity", 0, [], 1, ALL, b=ID_B),
        Case("suffix sums from init", "identity", 0, [], 1, SHORT,
             final=True, b=ID_B, init=ID_INIT, reverse=True),
        Case("readout of the prefix sums", "identity", 0, [], 1, SHORT,
             b=ID_B, readout=ID_C),
    ],
}


def main(names):
    for name in names or CASES:
        print("//===---- %s" % name)
        for case in CASES[name]:
            expected = case.verify()
            print("// %s (%s)" % (case.title, ", ".join(case.schedules)))
            for array in expected:
                print("\n".join(check_lines(array)))


if __name__ == "__main__":
    main(sys.argv[1:])

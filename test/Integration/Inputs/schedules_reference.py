#!/usr/bin/python3
"""Float64 reference model of recurrence.scan, for the schedules-*.mlir tests.

Written from the op's documented equations only (RecurrenceOps.td), not from
the lowering: it steps h_t = A_t h_{t-1} + b_t one t at a time. It is used to
compute the numbers checked by test/Integration/schedules-*.mlir and to print
them in the layout of printMemrefF32, e.g.

  /usr/bin/python3 schedules_reference.py

prints the CHECK lines of every case below. Inputs are chosen so that every
value is exact in f32 and prints exactly with 6 significant digits (asserted).
"""

import numpy as np


def _apply(structure, param, ops, h, per_element):
    """A_t h for one step; h is [N, D] (or the [m, N, D] stack)."""
    if structure == "identity":
        return h
    if structure == "scalar":
        return ops[0] * h
    if structure == "diagonal":
        a = ops[0]
        return a * h if per_element else a[:, None] * h
    if structure == "block_diagonal":
        blocks = ops[0]  # [N/m, m, m]
        m = param
        hb = h.reshape(-1, m, h.shape[-1])
        return np.einsum("jik,jkd->jid", blocks, hb).reshape(h.shape)
    if structure == "dplr":
        d, u, v = ops  # [N], [N, r], [N, r]
        a = np.diag(d) + u @ v.T
        return a @ h
    if structure == "dense":
        return ops[0] @ h
    raise ValueError(structure)


def scan_one(structure, param, trans, b=None, k=None, v=None, init=None,
             readout=None, reverse=False, matrix=False):
    """One batch element. trans: list of arrays with time first.

    Returns (outputs with time first, final state) in the op's layouts.
    """
    steps = (b if b is not None else k).shape[0]
    n = (b if b is not None else k).shape[1]
    if k is not None:
        d = v.shape[1]
    elif matrix:
        d = b.shape[2]
    else:
        d = 1
    per_element = structure == "diagonal" and trans[0].ndim == 3
    order = param if structure == "higher_order" else 0

    def as_state(x):  # [N] or [N, D] -> [N, D]
        return x.reshape(n, d)

    if order:
        stack = np.zeros((order, n, d))
        if init is not None:
            stack = np.array(init, dtype=np.float64).reshape(order, n, d)
    else:
        h = np.zeros((n, d))
        if init is not None:
            h = as_state(np.array(init, dtype=np.float64))

    outs = [None] * steps
    times = range(steps - 1, -1, -1) if reverse else range(steps)
    for t in times:
        ops = [np.array(x[t], dtype=np.float64) for x in trans]
        if k is not None:
            bt = np.outer(k[t], v[t])
        else:
            bt = as_state(np.array(b[t], dtype=np.float64))
        if order:
            a = ops[0]  # [m, N]: a[i] multiplies h_{t-1-i}
            new = bt + sum(a[i][:, None] * stack[i] for i in range(order))
            stack = np.concatenate([new[None], stack[:-1]])
            h = new
        else:
            h = _apply(structure, param, ops, h, per_element) + bt
        if readout is not None:
            y = np.array(readout[t], dtype=np.float64) @ h  # [D]
            outs[t] = y if matrix or k is not None else y[0]
        else:
            outs[t] = h if matrix or k is not None else h[:, 0]
    final = stack if order else h
    if not (matrix or k is not None):
        final = final[..., 0]
    return np.array(outs), final


def scan(structure, param, trans, batch_rank, **kw):
    """Loops scan_one over the leading batch_rank dims of every operand."""
    if batch_rank == 0:
        return scan_one(structure, param, trans, **kw)
    count = len((kw.get("b") if kw.get("b") is not None else kw["k"]))
    results = []
    for i in range(count):
        sub = {key: (val[i] if isinstance(val, np.ndarray) else val)
               for key, val in kw.items()}
        results.append(scan(structure, param, [x[i] for x in trans],
                            batch_rank - 1, **sub))
    return (np.array([r[0] for r in results]),
            np.array([r[1] for r in results]))


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
    header = "// CHECK: rank = %d offset = 0 sizes = [%s] strides = [%s] data =" % (
        array.ndim, ", ".join(map(str, array.shape)),
        ", ".join(map(str, strides)))
    rows = array.reshape(-1, array.shape[-1]) if array.ndim else array.reshape(1, 1)
    lines = []
    total = rows.shape[0]
    inner = array.shape[:-1]
    for r, row in enumerate(rows):
        # How many dims open before this row and close after it.
        idx = np.unravel_index(r, inner) if inner else ()
        opens = 1 + sum(1 for _ in range(len(inner)))
        opened = 1
        for i in reversed(range(len(inner))):
            if idx[i] == 0:
                opened += 1
            else:
                break
        closed = 1
        for i in reversed(range(len(inner))):
            if idx[i] == inner[i] - 1:
                closed += 1
            else:
                break
        del opens
        text = "[" * opened + ", ".join(fmt(x) for x in row) + "]" * closed
        if r != total - 1:
            text += ","
        lines.append("// CHECK-NEXT{LITERAL}: " + text)
    return [header] + lines


def show(title, array):
    print("// " + title)
    for line in check_lines(array):
        print(line)


if __name__ == "__main__":
    import schedules_cases  # noqa: F401  (prints every case)

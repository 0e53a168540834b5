"""Float64 references written plainly from the equations (loops over time),
for the tests only."""

import numpy as np


def scan(structure, a, b, init=None, reverse=False, readout=None,
         matrix=False):
    """h_t = A_t h_{t-1} + b_t with batch dims flattened by the caller's
    layout; returns (outputs, final state)."""
    b = np.asarray(b, np.float64)
    vector = not matrix
    if vector:
        b = b[..., None]
    T = b.shape[-3]
    batch = b.shape[:-3]
    N, D = b.shape[-2], b.shape[-1]
    order = a.shape[-2] if structure == "higher_order" else 1
    hist = np.zeros(batch + (order, N, D))
    if init is not None:
        i = np.asarray(init, np.float64)
        if vector:
            i = i[..., None]
        hist[...] = i.reshape(hist.shape)
    outs = []
    steps = range(T - 1, -1, -1) if reverse else range(T)
    results = [None] * T
    for t in steps:
        h = hist[..., 0, :, :]
        if structure == "identity":
            ah = h
        elif structure == "scalar":
            ah = a[..., t, None, None] * h
        elif structure == "diagonal":
            per_element = matrix and a.ndim == b.ndim
            at = a[..., t, :, :] if per_element else a[..., t, :, None]
            ah = at * h
        elif structure == "block_diagonal":
            A = a[..., t, :, :, :]  # [..., H, m, m]
            m = A.shape[-1]
            hb = h.reshape(batch + (N // m, m, D))
            ah = np.einsum("...gij,...gjd->...gid", A, hb).reshape(h.shape)
        elif structure == "dplr":
            d = a[0][..., t, :]
            U = a[1][..., t, :, :]
            V = a[2][..., t, :, :]
            ah = d[..., None] * h + np.einsum(
                "...nr,...kr,...kd->...nd", U, V, h)
        elif structure == "dense":
            ah = np.einsum("...nk,...kd->...nd", a[..., t, :, :], h)
        elif structure == "higher_order":
            at = a[..., t, :, :]  # [..., m, N]
            ah = np.einsum("...in,...ind->...nd", at, hist)
        new = ah + b[..., t, :, :]
        hist = np.concatenate([new[..., None, :, :], hist[..., :-1, :, :]],
                              axis=-3)
        if readout is not None:
            results[t] = np.einsum("...n,...nd->...d", readout[..., t, :],
                                   new)
        else:
            results[t] = new
    out = np.stack(results, axis=len(batch))
    last = hist if structure == "higher_order" else hist[..., 0, :, :]
    if vector:
        out = out[..., 0]
        last = last[..., 0]
    return out, last


def relative_error(got, want):
    """max |got - want| / (|want| + rms(want)), as the C++ tests measure:
    relative for elements of typical size, relative to the typical size for
    those near zero. NaN counts as infinite."""
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    if got.shape != want.shape:
        return np.inf
    if want.size == 0:
        return 0.0
    diff = np.abs(got - want)
    if not np.all(np.isfinite(diff)):
        return np.inf
    rms = np.sqrt(np.mean(want * want))
    with np.errstate(divide="ignore", invalid="ignore"):
        err = np.where(diff == 0, 0.0, diff / (np.abs(want) + rms))
    return float(np.nan_to_num(err.max(), nan=np.inf, posinf=np.inf))


# Contractive transitions (norm <= 0.95) remember about 1 / (1 - 0.95) steps;
# long-memory ones (radii in [0.97, 1] with exact 1s) at most about 200.
CONTRACTIVE_MEMORY = 20.0
LONG_MEMORY = 200.0


def tolerance(dtype, steps, memory=CONTRACTIVE_MEMORY, roundings=8.0):
    """The tolerance on relative_error, the rule of the C++ tests:
    roundings * eps(dtype) * sqrt(min(steps, memory)), the roundoff of one
    step (a product, a sum, a contraction: 8 eps) carried over the steps a
    state remembers, where errors of either sign add up like a random
    walk."""
    eps = 2.0 ** -53 if np.dtype(dtype) == np.float64 else 2.0 ** -24
    length = max(1.0, min(float(steps), float(memory)))
    return roundings * eps * np.sqrt(length)

"""The core front door: ``scan``, ``explain`` and ``compile``."""

import os
import sys

import numpy as np

from . import _recurrence
from ._checks import (NARROW_TYPES, as_float_array, check_choice, check_out, check_rank,
                      check_shape, check_signature_shape, unaliased)

SCHEDULES = ("auto", "sequential", "chunked", "scan")
DEFAULT_CHUNK = 256

_scan_cache = {}
_step_cache = {}
# Checked layouts of scan calls: (spec, output shape, final-state shape).
_scan_layouts = {}
_structure_table = None
# The static shapes each variant was compiled for (see static_sizes).
_static_shapes = {}


def structures():
    """The structures ``scan`` takes, as the compiler defines them: a dict
    from each name to its ``syntax`` (e.g. ``block_diagonal<m>``), the names
    of its transition ``operands``, their ``layouts`` after the batch dims,
    and whether it takes a ``parameter`` (read off the operand shapes) or a
    ``per_element`` first operand."""
    global _structure_table
    if _structure_table is None:
        _structure_table = {entry["name"]: entry
                            for entry in _recurrence.structures()}
    return {name: dict(entry) for name, entry in _structure_table.items()}


def _structure(name):
    """The compiler's description of structure `name` (not to be changed)."""
    if _structure_table is None:
        structures()
    entry = _structure_table.get(name) if isinstance(name, str) else None
    if entry is None:
        check_choice("structure", name, tuple(_structure_table))
    return entry


def step_axis(structure, a, b, matrix):
    """Where a decoding step's arrays get their time axis: the number of
    batch dims, read off the transition (as ``scan`` reads it) or off b,
    which is k of a factored input."""
    info = _structure(structure)
    transitions = (list(a) if isinstance(a, (tuple, list)) else
                   [] if a is None else [a])
    if isinstance(b, (tuple, list)):
        if len(b) != 2:
            raise TypeError("b: expected an array or a tuple (k, v) of a "
                            "factored input k_t v_t^T")
        return np.ndim(b[0]) - 1
    if not transitions or not info["operands"]:
        return np.ndim(b) - (2 if matrix else 1)
    rank = np.ndim(transitions[0]) - info["step_ranks"][0]
    if info["per_element"] and matrix and np.ndim(b) == np.ndim(
            transitions[0]):
        rank -= 1  # per-element [..., N, D]
    return rank


def _with_time(x, axis, expand):
    """x (an array, a tuple of them, or None) with a time axis of 1."""
    if x is None:
        return None
    if isinstance(x, (tuple, list)):
        return type(x)(expand(y, axis) for y in x)
    return expand(x, axis)


def _transition_arrays(info, a):
    """The transition operands of a structure, as a list of arrays."""
    names, structure = info["operands"], info["name"]
    if not names:
        if a is not None:
            raise ValueError(f"a: expected None for structure '{structure}'")
        return []
    if len(names) > 1:
        if not isinstance(a, (tuple, list)) or len(a) != len(names):
            raise TypeError(f"a: expected a tuple ({', '.join(names)}) for "
                            f"structure '{structure}'")
        return [as_float_array(n, x) for n, x in zip(names, a)]
    return [as_float_array(names[0], a)]


def _batch_rank(info, arrays, b, matrix):
    """The number of leading batch dims, from the transition's layout."""
    if not arrays:
        return b.ndim - (3 if matrix else 2)
    a = arrays[0]
    trailing = info["step_ranks"][0] + 1
    check_rank(info["operands"][0], a, trailing, info["layouts"][0])
    rank = a.ndim - trailing
    if info["per_element"] and matrix and b.ndim == a.ndim:
        rank -= 1  # per-element operand [..., T, N, D]
    return rank


def _fit(info, arrays, rank, per_element, columns, b):
    """The structure's parameter and N, read off the transition shapes."""
    if not arrays:
        return 0, b.shape[rank + 1]
    steps = [tuple(x.shape[rank + 1:]) for x in arrays]
    param, size = _recurrence.fit_structure(info["name"], steps, per_element,
                                            columns, b.shape[rank + 1])
    if param is None:
        shapes = ", ".join(f"{n} {tuple(x.shape)}"
                           for n, x in zip(info["operands"], arrays))
        layouts = ", ".join(f"{n} {layout}" for n, layout in
                            zip(info["operands"], info["layouts"]))
        raise ValueError(f"{info['operands'][0]}: shapes {shapes} do not fit "
                         f"structure '{info['syntax']}' ({layouts})")
    return param, size


def _describe(spec):
    name = spec["schedule"]
    return f"chunked<{spec['chunk_size']}>" if name == "chunked" else name


def _offsets(offsets, steps, bounds=True):
    """`offsets` as a contiguous int64 array of S + 1 sequence bounds over
    `steps` packed steps, after checking them (their kind and shape only,
    without `bounds`)."""
    array = np.asarray(offsets)
    if array.dtype.kind not in "iu":
        raise TypeError(f"offsets: expected integers (int32 or int64), got "
                        f"{array.dtype}")
    if array.ndim != 1 or array.size < 1:
        raise ValueError(f"offsets: expected a 1-d array [S + 1] of "
                         f"sequence bounds, got shape {array.shape}")
    if not bounds:
        return array
    if array[0] != 0 or array[-1] != steps:
        raise ValueError(f"offsets: expected bounds from 0 to T = {steps}, "
                         f"got {int(array[0])} .. {int(array[-1])}")
    if array.size > 1 and np.any(np.diff(array) < 0):
        at = int(np.argmax(np.diff(array) < 0))
        raise ValueError(f"offsets: expected non-decreasing bounds, got "
                         f"{int(array[at])} then {int(array[at + 1])} at "
                         f"{at}")
    return np.ascontiguousarray(array, dtype=np.int64)


def _prepare(a, b, structure, init, reverse, schedule, chunk_size, readout,
             return_final_state, matrix, offsets=None, offset_bounds=True):
    """Validates the arguments; returns (spec, sizes, operand arrays). The
    values of `offsets` are checked with `offset_bounds` only."""
    info = _structure(structure)
    check_choice("schedule", schedule, SCHEDULES)
    arrays = _transition_arrays(info, a)
    dtype = arrays[0].dtype if arrays else None
    arrays = [as_float_array(n, x, dtype)
              for n, x in zip(info["operands"], arrays)]
    factored = isinstance(b, (tuple, list))
    if factored:
        if len(b) != 2:
            raise TypeError("b: expected an array or a tuple (k, v) of a "
                            "factored input k_t v_t^T")
        key = as_float_array("k", b[0], dtype)
        value = as_float_array("v", b[1], key.dtype)
        check_rank("k", key, 2, "[..., T, N]")
        check_rank("v", value, 2, "[..., T, D]")
        inputs, b = [key, value], key
    else:
        b = as_float_array("b", b, dtype)
        inputs = [b]
    dtype = b.dtype
    # Narrower operands keep a float32 state: init and the final state are
    # float32, the output has the operands' dtype.
    narrow = NARROW_TYPES.get(dtype)
    state_dtype = np.dtype(np.float32) if narrow else dtype
    if chunk_size is not None:
        if not isinstance(chunk_size, int) or chunk_size < 1:
            raise ValueError(f"chunk_size: expected a positive int, got "
                             f"{chunk_size!r}")
        if schedule == "auto":
            schedule = "chunked"
    if schedule == "chunked" and chunk_size is None:
        chunk_size = DEFAULT_CHUNK
    if schedule != "chunked":
        chunk_size = 0
    if factored:
        # k is laid out like a vector state's input; a per-element
        # transition has one more dim than k.
        rank = _batch_rank(info, arrays, b, False)
        per_element = (info["per_element"] and arrays[0].ndim == b.ndim + 1)
        rank -= 1 if per_element else 0
        if rank < 0 or b.ndim - rank != 2:
            raise ValueError(f"k: expected shape [..., T, N] consistent with "
                             f"a, got {tuple(b.shape)}")
        is_matrix = True
    else:
        rank = _batch_rank(info, arrays, b, bool(matrix))
        if rank < 0 or b.ndim - rank not in (2, 3):
            raise ValueError(f"b: expected shape [..., T, N] or [..., T, N, "
                             f"D] consistent with a, got {tuple(b.shape)}")
        is_matrix = b.ndim - rank == 3
        per_element = (info["per_element"] and is_matrix and
                       arrays[0].ndim == b.ndim)
    columns = (inputs[1].shape[-1] if factored else
               b.shape[-1] if is_matrix else 1)
    # The transition fixes batch dims, T and N where it has them, so that a
    # mismatch is reported on the input rather than on the transition.
    param, size = _fit(info, arrays, rank, per_element, columns, b)
    spec = dict(structure=structure, param=int(param), schedule=schedule,
                chunk_size=int(chunk_size), matrix=is_matrix,
                per_element=per_element, factored=factored,
                reverse=bool(reverse),
                init=init is not None, readout=readout is not None,
                final_state=bool(return_final_state),
                f64=dtype == np.float64, batch_rank=rank)
    if narrow:
        spec["operand_type"] = narrow
    source = arrays[0] if arrays else b
    sizes = dict(batch=list(source.shape[:rank]), steps=source.shape[rank],
                 size=size, columns=columns)
    if offsets is not None:
        offsets = _offsets(offsets, b.shape[rank], offset_bounds)
        spec["offsets"] = True
        sizes["sequences"] = offsets.size - 1
    names = info["operands"] + (["k", "v"] if factored else ["b"])
    operands = arrays + inputs
    if init is not None:
        names.append("init")
        operands.append(as_float_array("init", init, state_dtype))
    if readout is not None:
        names.append("readout")
        operands.append(as_float_array("readout", readout, dtype))
    if offsets is not None:
        names.append("offsets")
        operands.append(offsets)
    expected, out_shape, last_shape = _recurrence.scan_shapes(spec, sizes)
    for name, array, shape in zip(names, operands, expected):
        check_shape(name, array, shape)
    return spec, sizes, operands, out_shape, last_shape


def scan(a, b, *, structure="diagonal", init=None, reverse=False,
         schedule="auto", chunk_size=None, readout=None,
         return_final_state=False, matrix=None, out=None,
         final_state_out=None, offsets=None):
    """Evaluates h_t = A_t h_{t-1} + b_t for t = 1..T (T..1 when reversed).

    a: None (identity) | [..., T] (scalar) | [..., T, N] (diagonal; with
       ``matrix=True`` also [..., T, N, D] per state element) |
       [..., T, H, m, m] (block_diagonal) | (d, U, V) with d [..., T, N],
       U, V [..., T, N, r] (dplr) | [..., T, N, N] (dense) |
       [..., T, m, N] (higher_order)
    b: [..., T, N] (vector state) or [..., T, N, D] (matrix state), or a
       tuple (k, v) with k [..., T, N], v [..., T, D]: the factored input
       b_t = k_t v_t^T of a matrix state
    init: [..., N] / [..., N, D] ([..., m, N(, D)] for higher_order, newest
       first)
    readout: C [..., T, N]; returns y_t = C_t^T h_t instead of the states
    out, final_state_out: arrays (NumPy's out= convention: exact shape and
       dtype) that receive h (or y) and the final state, which the compiled
       code writes directly; they are also what is returned
    offsets: [S + 1] integers, 0 = o_0 <= ... <= o_S = T: S sequences packed
       along T (``cu_seqlens``), sequence s being steps o_s .. o_{s+1} - 1.
       The state restarts at each, from its own init; init and the final
       state then hold one state per sequence, [..., S, N(, D)]
    Returns h (or y), and the final state too when ``return_final_state``.
    """
    # A layout seen before (the same arguments' kinds, shapes and dtypes)
    # skips the checks: they passed for it, and the shapes are in the key.
    transitions = list(a) if isinstance(a, (tuple, list)) else [a]
    inputs = list(b) if isinstance(b, (tuple, list)) else [b]
    operands = [x for x in transitions + inputs + [init, readout, offsets]
                if x is not None]
    arrays = all(type(x) is np.ndarray for x in operands)
    key = (structure, schedule, chunk_size, type(chunk_size), bool(reverse),
           init is not None, readout is not None, offsets is not None,
           bool(return_final_state), matrix, type(matrix), type(a),
           type(b)) + tuple(
        (x.shape, x.dtype.str) for x in operands) if arrays else None
    try:
        layout = _scan_layouts.get(key) if arrays else None
    except TypeError:  # an unhashable argument: _prepare says what is wrong
        layout = key = None
    if layout is None:
        spec, _, operands, out_shape, last_shape = _prepare(
            a, b, structure, init, reverse, schedule, chunk_size, readout,
            return_final_state, matrix, offsets)
        layout = (spec, out_shape, last_shape)
        if key is not None:
            if len(_scan_layouts) >= 4096:  # many shapes: start over
                _scan_layouts.clear()
            _scan_layouts[key] = layout
    spec, out_shape, last_shape = layout
    if offsets is not None:  # bounds differ from call to call
        operands[-1] = _offsets(offsets, out_shape[spec["batch_rank"]])
    out_dtype, state_dtype = spec_dtypes(spec)
    out = check_out("out", out, out_shape, out_dtype)
    if final_state_out is not None and not return_final_state:
        raise ValueError("final_state_out: needs return_final_state=True")
    final_state_out = check_out("final_state_out", final_state_out,
                                last_shape, state_dtype)
    if (out is not None and final_state_out is not None
            and np.may_share_memory(out, final_state_out)):
        raise ValueError("final_state_out: must not overlap out")
    results = _run(spec, operands, out_shape, last_shape,
                   [out, final_state_out])
    return tuple(results) if return_final_state else results[0]


def step(a, b, state, *, structure="diagonal", readout=None, matrix=None,
         out=None, state_out=None):
    """One step of the recurrence, for decoding token by token: the new
    state h = A h_prev + b, or (y, h) with a readout, y = c^T h.

    a, b, readout: one step's operands, laid out as in ``scan`` without the
       time axis (a: [..., N] for diagonal, b: [..., N] / [..., N, D] or
       (k, v), readout: [..., N])
    state: h_prev, laid out like scan's init ([..., m, N(, D)] for
       higher_order)
    out, state_out: arrays that receive y and the new state; state_out may
       be `state` itself, which then advances in place.
    A prefix decoded step by step equals ``scan`` over the same steps.
    """
    if out is not None and readout is None:
        raise ValueError("out: a step without readout returns only the "
                         "state; use state_out=")
    flat = [x for x in (list(a) if isinstance(a, (tuple, list)) else [a]) +
            (list(b) if isinstance(b, (tuple, list)) else [b]) + [state,
                                                                  readout]
            if x is not None]
    arrays = all(isinstance(x, np.ndarray) for x in flat)
    key = (structure, matrix, readout is not None,
           isinstance(b, (tuple, list))) + tuple(
        (x.shape, x.dtype) for x in flat if arrays)
    layout = _step_cache.get(key) if arrays else None
    if layout is None:
        # The first call of a layout: checked in full by scan, and cached.
        axis = step_axis(structure, a, b, matrix)
        if axis < 0:
            raise ValueError("b: has fewer dims than one step of the "
                             "structure takes")
        expand = lambda y, i: np.expand_dims(np.asarray(y), i)
        a1, b1, c1 = (_with_time(x, axis, expand) for x in (a, b, readout))
        spec, _, operands, out_shape, last_shape = _prepare(
            a1, b1, structure, state, False, "sequential", None, c1, True,
            matrix)
        dtypes = spec_dtypes(spec)
        # Without a readout the step's output row is the new state, which
        # nobody reads: it goes to one scratch array per layout.
        scratch = None if readout is not None else np.empty(out_shape,
                                                            dtypes[0])
        layout = (axis, compiled_scan(spec), out_shape, last_shape, dtypes,
                  scratch)
        if arrays:
            _step_cache[key] = layout
    else:
        operands = [x if x is state else
                    x.reshape(x.shape[:layout[0]] + (1,) +
                              x.shape[layout[0]:])
                    for x in flat]
    axis, compiled, out_shape, last_shape, dtypes, scratch = layout
    y_out = scratch if out is None else check_out(
        "out", np.expand_dims(out, axis) if isinstance(out, np.ndarray)
        else out, out_shape, dtypes[0])
    if state_out is not None and not (
            type(state_out) is np.ndarray and state_out.shape == last_shape
            and state_out.dtype == dtypes[1] and state_out.flags.writeable):
        check_out("state_out", state_out, last_shape, dtypes[1])
    if y_out is not None and state_out is not None and np.may_share_memory(
            y_out, state_out):
        raise ValueError("state_out: must not overlap out")
    # The sequential step reads each element of the state before it writes
    # that element of the new one: `state_out=state` advances in place.
    h, last = compiled(unaliased(operands, [y_out, state_out],
                                 in_place=state if state_out is state
                                 else None),
                       [out_shape, last_shape], [y_out, state_out])
    if readout is None:
        return last
    return np.squeeze(h, axis) if out is None else out, last


def spec_dtypes(spec):
    """The dtypes of the output and of the state of the scan of `spec`."""
    state = np.dtype(np.float64 if spec["f64"] else np.float32)
    narrow = spec.get("operand_type")
    return (_recurrence.DTYPES[narrow] if narrow else state), state


# recurrenceCompileScan's `gradient` for the first-order gradient that
# takes the forward call's results after the operands.
GRADIENT_OF_RESULTS = 3


def compiled_scan(spec, gradient=False, sizes=None):
    """The compiled scan of `spec` (for its "target"), or its gradient,
    compiled once per process: on dynamic shapes, or for `sizes` only."""
    key = ((gradient,) + tuple(sorted(spec.items())) +
           ((None,) if sizes is None else
            (tuple(sizes["batch"]), sizes["steps"], sizes["size"],
             sizes["columns"]) + _layouts_key(sizes)))
    compiled = _scan_cache.get(key)
    if compiled is None:
        compiled = _recurrence.compile_scan(spec, gradient, sizes)
        _scan_cache[key] = compiled
    return compiled


def static_sizes(variant, shape, target, dims):
    """Whether to compile `variant` (a key of what is compiled) for the
    static sizes of a call, `shape` (a key of them) whose sizes are `dims`,
    where trip counts and strides become constants, rather than once for
    any sizes. Never for an empty problem (a size of 0 in `dims`): it has
    nothing to gain. Like
    torch.compile, which makes a size dynamic once it has changed: only for
    the first $RECURRENCE_STATIC_SHAPES shapes of a variant, by default 8 on
    "cuda", whose kernels compile in under a second, and 1 on "cpu", where
    a model's gradient takes seconds; 0 compiles every variant for any
    sizes."""
    if any(d < 1 for d in dims):
        return False
    shapes = _static_shapes.setdefault(variant, set())
    if shape in shapes:
        return True
    default = "8" if target == "cuda" else "1"
    value = os.environ.get("RECURRENCE_STATIC_SHAPES", default)
    try:
        limit = max(0, int(value))
    except ValueError:
        raise ValueError(f"$RECURRENCE_STATIC_SHAPES: expected a count of "
                         f"shapes, got {value!r}") from None
    if len(shapes) >= limit:
        return False
    shapes.add(shape)
    return True


def _layouts_key(sizes):
    """The stated layouts of `sizes` (arg_strides, result_strides), as a
    key."""
    return tuple(tuple(None if x is None else tuple(x)
                       for x in sizes.get(key, ()))
                 for key in ("arg_strides", "result_strides"))


def _run(spec, operands, out_shape, last_shape, outs=(None, None)):
    """Calls the compiled scan of `spec` (cached) and returns its results,
    written into `outs` where given."""
    compiled = compiled_scan(spec)
    shapes = [out_shape] + ([last_shape] if spec["final_state"] else [])
    outs = list(outs[:len(shapes)])
    return compiled(unaliased(operands, outs), shapes, outs)


def gradient_kind(results):
    """The `gradient` compiled_scan takes for a first-order gradient: the
    one that reads the states from the forward's `results` where they are
    given (GRADIENT_OF_RESULTS), else the one that recomputes them."""
    return GRADIENT_OF_RESULTS if results else True


def _gradients(spec, operands, gout, gfinal, last_shape, sizes=None,
               results=None):
    """The gradients of the scan of `spec` at `operands` (one array per
    operand, shaped like it) for the cotangent `gout` of its output and
    `gfinal` of its final state (None: zero), from the compiler's adjoint
    (compiled for `sizes` only, when given). `results`, the forward call's
    (output[, final state]), when given: the adjoint reads the states from
    the output instead of recomputing them (GRADIENT_OF_RESULTS)."""
    compiled = compiled_scan(spec, gradient=gradient_kind(results),
                             sizes=sizes)
    cotangents = [gout]
    if spec["final_state"]:
        cotangents.append(np.zeros(last_shape, gout.dtype) if gfinal is None
                          else gfinal)
    arrays = [np.ascontiguousarray(x)
              for x in list(operands) + list(results or []) + cotangents]
    return compiled(arrays, [list(x.shape) for x in operands], [])


def _second_gradients(spec, arguments, gbars, sizes):
    """The gradients of the scan's gradient function at `arguments` (the
    operands, then the cotangents it takes) for the cotangents `gbars` of
    its results (one per operand): one array per argument. Compiled for
    `sizes` (the first-order gradient branches on T = 0 at dynamic sizes,
    which the sweep cannot differentiate), every size at least 1."""
    compiled = compiled_scan(spec, gradient=2, sizes=sizes)
    arrays = [np.ascontiguousarray(x) for x in list(arguments) + list(gbars)]
    return compiled(arrays, [list(x.shape) for x in arguments], [])


def explain(a, b, *, structure="diagonal", init=None, reverse=False,
            schedule="auto", chunk_size=None, readout=None,
            return_final_state=False, matrix=None, target="cpu", cores=0):
    """The cost model's view of ``scan(...)`` with the same arguments: the
    schedule it picks, every candidate's estimated seconds, and whether
    the target's kernels read operands whose steps are contiguous (time
    innermost, Mamba's [B, N, T] passed as a [B, T, N] view) in place at
    least as fast as from a transposing copy, or why not (the torch front
    door reads such CUDA tensors in place where they do)."""
    spec, sizes, _, _, _ = _prepare(a, b, structure, init, reverse, schedule,
                                    chunk_size, readout, return_final_state,
                                    matrix)
    check_choice("target", target, ("cpu", "cuda"))
    spec = dict(spec, schedule="auto", chunk_size=0)
    candidates = [(f"chunked<{chunk}>" if name == "chunked" else name, secs)
                  for name, chunk, secs in _recurrence.explain(
                      spec, sizes, target, int(cores))]
    requested = None if schedule == "auto" and chunk_size is None else \
        _describe(dict(schedule=schedule if chunk_size is None else
                       "chunked", chunk_size=chunk_size or DEFAULT_CHUNK))
    in_place, reason = _recurrence.reads_time_contiguous_in_place(
        spec, sizes, target)
    return dict(schedule=requested or candidates[0][0],
                chosen_by="request" if requested else "cost model",
                candidates=candidates,
                time_contiguous_in_place=dict(in_place=in_place,
                                              reason=reason))


class Compiled:
    """A compiled function of a module, callable on NumPy arrays."""

    def __init__(self, native, entry):
        self._native = native
        self.entry = entry
        (self.arg_shapes, self.arg_dtypes, self.result_shapes,
         self.result_dtypes) = native.signature()

    def __call__(self, *args, result_shapes=None, outs=None):
        """Runs the function; `outs` (one array or None per result, with
        the result's shape and dtype) receive the results in place."""
        if len(args) != len(self.arg_shapes):
            raise TypeError(f"{self.entry}: expected {len(self.arg_shapes)} "
                            f"arguments, got {len(args)}")
        arrays = []
        for i, (arg, shape, dtype) in enumerate(
                zip(args, self.arg_shapes, self.arg_dtypes)):
            arg = as_float_array(f"argument {i}", arg, dtype)
            check_signature_shape(f"argument {i}", arg.shape, shape)
            arrays.append(arg)
        shapes = result_shapes or self.result_shapes
        if any(size < 0 for shape in shapes for size in shape):
            raise ValueError(f"{self.entry}: results have dynamic sizes; pass "
                             f"result_shapes=")
        outs = list(outs or [])
        if len(outs) > len(shapes):
            raise ValueError(f"{self.entry}: {len(outs)} outs for "
                             f"{len(shapes)} results")
        for i, (out, shape, dtype) in enumerate(
                zip(outs, shapes, self.result_dtypes)):
            check_out(f"outs[{i}]", out, tuple(shape), dtype)
        results = self._native(unaliased(arrays, outs),
                               [list(s) for s in shapes], outs)
        return results[0] if len(results) == 1 else tuple(results)


# The element types of CUDA arrays, as the NumPy dtypes of signature():
# by __cuda_array_interface__ typestr, and by torch dtype name (the integer
# ones for sequence offsets).
_DEVICE_TYPES = {"<f4": _recurrence.DTYPES["f32"],
                 "<f8": _recurrence.DTYPES["f64"],
                 "<f2": _recurrence.DTYPES["f16"],
                 "<i4": _recurrence.DTYPES["i32"],
                 "<i8": _recurrence.DTYPES["i64"]}
_TORCH_TYPES = {"float32": _recurrence.DTYPES["f32"],
                "float64": _recurrence.DTYPES["f64"],
                "float16": _recurrence.DTYPES["f16"],
                "bfloat16": _recurrence.DTYPES["bf16"],
                "int32": _recurrence.DTYPES["i32"],
                "int64": _recurrence.DTYPES["i64"]}


_TORCH_NAMES = {dtype: name for name, dtype in _TORCH_TYPES.items()}


def torch_dtype(torch, dtype):
    """The torch dtype that holds NumPy `dtype` (one of signature()'s)."""
    return getattr(torch, _TORCH_NAMES[np.dtype(dtype)])


def _current_stream():
    """torch's current stream when torch is loaded (its legacy default
    stream, 0, is the driver's CU_STREAM_LEGACY, 1), else 0: the library's
    own, waited for."""
    torch = sys.modules.get("torch")
    return (torch.cuda.current_stream().cuda_stream or 1) if torch else 0


def _device_array(name, x):
    """(address, NumPy dtype, shape, strides in elements) of a CUDA array: a
    torch tensor, or any object with ``__cuda_array_interface__``."""
    if type(x).__module__.startswith("torch") and hasattr(x, "data_ptr"):
        if not x.is_cuda:
            raise ValueError(f"{name}: expected a CUDA tensor, got one on "
                             f"{x.device}")
        dtype = str(x.dtype).replace("torch.", "")
        if dtype not in _TORCH_TYPES:
            raise TypeError(f"{name}: expected a floating-point, int32 or "
                            f"int64 tensor, got {dtype}")
        return (x.data_ptr(), _TORCH_TYPES[dtype], tuple(x.shape),
                tuple(x.stride()))
    face = getattr(x, "__cuda_array_interface__", None)
    if face is None:
        raise TypeError(f"{name}: expected a CUDA array (a torch tensor or an "
                        f"object with __cuda_array_interface__), got "
                        f"{type(x).__name__}")
    if face["typestr"] not in _DEVICE_TYPES:
        raise TypeError(f"{name}: unsupported element type "
                        f"{face['typestr']!r}")
    shape = tuple(face["shape"])
    itemsize = int(face["typestr"][2:])
    strides = face.get("strides")
    strides = (tuple(s // itemsize for s in strides) if strides else
               tuple(int(np.prod(shape[i + 1:])) for i in range(len(shape))))
    return face["data"][0], _DEVICE_TYPES[face["typestr"]], shape, strides


class CudaCompiled:
    """A function compiled for the GPU, callable on CUDA arrays (torch
    tensors or objects with ``__cuda_array_interface__``), on torch's
    current stream when torch is loaded."""

    def __init__(self, native, entry):
        self._native = native
        self.entry = entry
        (self.arg_shapes, self.arg_dtypes, self.result_shapes,
         self.result_dtypes) = native.signature()
        self.arg_strides, self.result_strides = native.strides()

    @staticmethod
    def _check(name, view, shape, dtype):
        """A view of `dtype` and `shape`. (Its strides are checked by the
        call: contiguous unless the entry states a layout.)"""
        _, got_dtype, got_shape, _ = view
        if got_dtype != dtype:
            raise TypeError(f"{name}: expected {dtype}, got {got_dtype}")
        check_signature_shape(name, got_shape, shape)

    def __call__(self, *args, result_shapes=None, outs=None):
        """Runs the function on CUDA arrays; returns its results, new torch
        tensors unless `outs` (CUDA arrays) receive them."""
        if len(args) != len(self.arg_shapes):
            raise TypeError(f"{self.entry}: expected {len(self.arg_shapes)} "
                            f"arguments, got {len(args)}")
        views = [_device_array(f"argument {i}", x) for i, x in enumerate(args)]
        for i, (view, shape, dtype) in enumerate(
                zip(views, self.arg_shapes, self.arg_dtypes)):
            self._check(f"argument {i}", view, shape, dtype)
        shapes = result_shapes or self.result_shapes
        if any(size < 0 for shape in shapes for size in shape):
            raise ValueError(f"{self.entry}: results have dynamic sizes; pass "
                             f"result_shapes=")
        torch = sys.modules.get("torch")
        if outs is None:
            if torch is None:
                raise ValueError(f"{self.entry}: pass outs= (CUDA arrays for "
                                 f"the results) or import torch")
            outs = [torch.empty_strided(
                        tuple(shape), _recurrence.stated_strides(shape, layout),
                        dtype=torch_dtype(torch, dtype), device="cuda")
                    for shape, dtype, layout in zip(
                        shapes, self.result_dtypes, self.result_strides)]
        if len(outs) != len(shapes):
            raise ValueError(f"{self.entry}: expected {len(shapes)} outs, got "
                             f"{len(outs)}")
        results = [_device_array(f"outs[{i}]", x) for i, x in enumerate(outs)]
        for i, (view, shape, dtype) in enumerate(
                zip(results, shapes, self.result_dtypes)):
            self._check(f"outs[{i}]", view, tuple(shape), dtype)
        self._native.call_device(views, results, _current_stream())
        return outs[0] if len(outs) == 1 else tuple(outs)


def compile(mlir_text, entry, *, target="cpu"):
    """JIT-compiles function `entry` of `mlir_text` (functions on tensors)
    through -recurrence-to-llvm (target "cpu": a callable on NumPy arrays)
    or -recurrence-to-nvvm ("cuda": a callable on CUDA arrays)."""
    if not isinstance(mlir_text, str) or not isinstance(entry, str):
        raise TypeError("compile: expected the module text and entry name as "
                        "strings")
    check_choice("target", target, ("cpu", "cuda"))
    module = _recurrence.Module.parse(mlir_text)
    native = _recurrence.compile_module(module, entry, target)
    return (CudaCompiled if target == "cuda" else Compiled)(native, entry)

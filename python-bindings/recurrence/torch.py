"""PyTorch embedding: recurrences as autograd functions on CPU and CUDA
tensors.

``scan`` runs the compiled scan forward and, for the backward pass, the
gradient function that the compiler's -recurrence-differentiate derives (a
reverse scan with transposed, shifted transitions plus the gradient
contractions); no gradient is written by hand per structure. The model
functions run the compiler's model op and the gradient it derives for it
where they can (f32 or f64, eagerly; see _runs_compiled_model), and else
compose torch's elementwise ops with ``scan``, so that their gradients
flow through torch's autograd and through the adjoint.

The scan and the models are also registered as custom ops
(``torch.ops.recurrence.scan``, ``.linear_attention``, ...) where the
installed torch has ``torch.library``.
"""

import os

import numpy as np
import torch as _torch
from torch.autograd.function import once_differentiable

from . import _recurrence, api, models

__all__ = ["scan", "step", "linear_attention", "delta_rule", "selective_ssm",
           "normalize_gates", "hlru", "bdlru", "linear_attention_step",
           "delta_rule_step", "selective_ssm_step", "hlru_step", "bdlru_step"]


# float16 and bfloat16 operands run with a float32 state (init and final
# state float32, the output in the operands' dtype).
_NARROW = {_torch.float16: "f16", _torch.bfloat16: "bf16"}


def _check_tensor(name, value, dtype=None, narrow=False):
    if not isinstance(value, _torch.Tensor):
        raise TypeError(f"{name}: expected a torch.Tensor, got "
                        f"{type(value).__name__}")
    if value.dtype not in (_torch.float32, _torch.float64, _torch.float16,
                           _torch.bfloat16):
        raise TypeError(f"{name}: expected dtype torch.float32, "
                        f"torch.float64, torch.float16 or torch.bfloat16, "
                        f"got {value.dtype}")
    if value.dtype in _NARROW and not narrow:
        raise TypeError(f"{name}: {value.dtype} tensors are taken by "
                        f"recurrence.torch.scan only; expected torch.float32 "
                        f"or torch.float64")
    if dtype is not None and value.dtype != dtype:
        raise TypeError(f"{name}: expected dtype {dtype} like the other "
                        f"arguments, got {value.dtype}")
    if value.device.type not in ("cpu", "cuda"):
        raise ValueError(f"{name}: expected a CPU or CUDA tensor, got one on "
                         f"{value.device}")
    return value


def _check_device(tensors):
    """All operands on one device; CUDA ones made contiguous (the kernels
    take contiguous device buffers)."""
    devices = {t.device for t in tensors}
    if len(devices) > 1:
        raise ValueError(f"expected every tensor on one device, got "
                         f"{', '.join(sorted(map(str, devices)))}")
    device = next(iter(devices), None)
    if device is not None and device.type == "cuda" and (device.index or 0):
        raise ValueError(f"expected tensors on cuda:0 (the GPU runtime "
                         f"drives the first device only so far), got "
                         f"{device}")


def _state_dtype(dtype):
    """The dtype of init and the final state for operands of `dtype`."""
    return _torch.float32 if dtype in _NARROW else dtype


def _numpy(tensor):
    """The tensor's memory as an array; bfloat16 (which NumPy lacks) as
    recurrence's bf16 dtype (ml_dtypes', or raw uint16 bits)."""
    tensor = tensor.detach()
    if tensor.dtype == _torch.bfloat16:
        return tensor.view(_torch.int16).numpy().view(_recurrence.BFLOAT16)
    return tensor.numpy()


def _tensor(array):
    """The inverse of _numpy for a result the compiled code wrote."""
    if array.dtype == _recurrence.BFLOAT16:
        return _torch.from_numpy(array.view(np.int16)).view(_torch.bfloat16)
    return _torch.from_numpy(array)


# The NumPy dtype (one of signature()'s) of each torch dtype taken.
_TORCH_TO_NUMPY = {getattr(_torch, name): dtype
                   for name, dtype in api._TORCH_TYPES.items()}

_DUMMY_DTYPES = {_torch.float64: np.float64, _torch.float32: np.float32,
                 # bfloat16 checks as float16, which has its width
                 _torch.float16: np.float16, _torch.bfloat16: np.float16,
                 _torch.int32: np.int32, _torch.int64: np.int64}


def _dummy(tensor):
    """An array with the shape and dtype of `tensor` and no data, for the
    shape checks (which also run on fake tensors, under torch.compile)."""
    dtype = _DUMMY_DTYPES[tensor.dtype]
    return np.lib.stride_tricks.as_strided(
        np.zeros(1, dtype), tuple(int(s) for s in tensor.shape),
        (0,) * tensor.dim())


# Checked layouts by the operands' static shapes and dtypes and the scan's
# parameters: a call with the shapes of an earlier one checks nothing anew.
_LAYOUTS = {}


def _layout(transition, b, init, readout, structure, reverse, matrix,
            return_final_state, schedule, chunk_size, offsets=None):
    """The checked spec of a scan, its output shapes and its sizes, from the
    shapes of its operands: (spec, out_shape, last_shape, sizes). Callers
    must not modify them."""
    tensors = _operands(transition, b, init, readout, offsets)
    key = (tuple((t.shape, t.dtype) for t in tensors), len(transition),
           init is not None, readout is not None, offsets is not None,
           structure, reverse, matrix, return_final_state, schedule,
           chunk_size, type(chunk_size))
    # Symbolic sizes (fake tensors under torch.compile) are checked anew.
    static = all(type(s) is int for t in tensors for s in t.shape)
    layout = _LAYOUTS.get(key) if static else None
    if layout is None:
        layout = _check_layout(transition, b, init, readout, structure,
                               reverse, matrix, return_final_state, schedule,
                               chunk_size, offsets)
        if static and len(_LAYOUTS) < 256:
            _LAYOUTS[key] = layout
    return layout


def _check_layout(transition, b, init, readout, structure, reverse, matrix,
                  return_final_state, schedule, chunk_size, offsets):
    """_layout, checked by the native shape rules."""
    operands = api._structure(structure)["operands"]
    a = (None if not transition else
         tuple(_dummy(t) for t in transition) if len(operands) > 1 else
         _dummy(transition[0]))
    spec, sizes, _, out_shape, last_shape = api._prepare(
        a, _dummy(b[0]) if len(b) == 1 else tuple(_dummy(t) for t in b),
        structure, None if init is None else _dummy(init), reverse,
        schedule, chunk_size or None,
        None if readout is None else _dummy(readout), return_final_state,
        matrix or None, None if offsets is None else _dummy(offsets),
        offset_bounds=False)
    if b[0].dtype in _NARROW:
        spec["operand_type"] = _NARROW[b[0].dtype]
    return spec, out_shape, last_shape, sizes


def _operands(transition, b, init, readout, offsets=None):
    return list(transition) + list(b) + [x for x in (init, readout, offsets)
                                         if x is not None]


def _check_offsets(offsets, out_shape, spec):
    """The values of `offsets` (an int64 tensor) checked against T: read
    back from the GPU for CUDA tensors, once per tensor and version (a
    model's layers share one cu_seqlens tensor, so the read-back, a
    synchronization, happens once rather than per layer)."""
    steps = out_shape[spec["batch_rank"]]
    checked = (offsets._version, steps)
    if offsets.is_cuda and getattr(offsets, "_recurrence_checked",
                                   None) == checked:
        return
    api._offsets(offsets.detach().cpu().numpy(), steps)
    if offsets.is_cuda:
        offsets._recurrence_checked = checked


def _scan_forward(transition, b, init, readout, structure, reverse, matrix,
                  return_final_state, schedule, chunk_size, offsets=None):
    """The compiled scan: [output] or [output, final state]."""
    spec, out_shape, last_shape, sizes = _layout(
        transition, b, init, readout, structure, reverse, matrix,
        return_final_state, schedule, chunk_size, offsets)
    if offsets is not None:
        _check_offsets(offsets, out_shape, spec)
    operands = _operands(transition, b, init, readout, offsets)
    if b[0].is_cuda:
        return _scan_forward_cuda(spec, sizes, operands, len(transition),
                                  b[0].dtype, out_shape, last_shape)
    results = api._run(spec, [_numpy(t) for t in operands], out_shape,
                       last_shape)
    return [_tensor(r) for r in results]


def _cuda_compiled(spec, sizes, gradient=False):
    """The scan of `spec` (or its adjoint) compiled for the GPU, looked up
    by the spec object that _layout caches (one per shape). The kernels are
    compiled for the call's sizes, where strides and trip counts are
    constants (10 to 25% faster on the H200, under a second to compile),
    for the first shapes of a scan (api.static_sizes); after that, once for
    any shape."""
    return _per_spec(
        _CUDA_COMPILED, spec, (gradient,) + api._layouts_key(sizes),
        lambda: api.compiled_scan(dict(spec, target="cuda"), gradient,
                                  _specialized(spec, sizes, gradient, "cuda")))


_CUDA_COMPILED = {}


def _per_spec(cache, spec, key, make):
    """make(), cached in `cache` for the spec object (one per shape, from
    _layout) and `key`. Each entry holds its spec, so that an id reused
    after a spec is freed never finds another spec's entry; the cache is
    emptied when it reaches 512 entries."""
    key = (id(spec),) + key
    entry = cache.get(key)
    if entry is not None and entry[0] is spec:
        return entry[1]
    if len(cache) >= 512:
        cache.clear()
    value = make()
    cache[key] = (spec, value)
    return value


def _dims(sizes):
    """The batch dims, steps, state size and columns of `sizes`."""
    return tuple(sizes["batch"]) + (sizes["steps"], sizes["size"],
                                    sizes["columns"])


def _specialized(spec, sizes, gradient, target):
    """`sizes` where the scan of `spec` (or its `gradient`) is compiled for
    the call's static sizes on `target`, as api.static_sizes decides (the
    first shapes of each variant); else None, for any sizes."""
    dims = _dims(sizes)
    shape = (dims, api._layouts_key(sizes))
    variant = (target, gradient) + tuple(sorted(spec.items()))
    return sizes if api.static_sizes(variant, shape, target, dims) else None


def _permuted_strides(tensor):
    """The strides of a tensor that is a permutation of a contiguous one (a
    transposed view, say), or None when it is contiguous or not such a
    permutation."""
    if tensor.is_contiguous():
        return None
    order = sorted(range(tensor.dim()),
                   key=lambda d: (tensor.stride(d), tensor.shape[d]))
    expected = 1
    for d in order:
        if tensor.shape[d] > 1 and tensor.stride(d) != expected:
            return None
        expected *= tensor.shape[d]
    # A dim of size 1 is never stepped over; a layout needs a positive
    # stride for it all the same.
    return tuple(max(stride, 1) for stride in tensor.stride())


def _in_layout_of(tensor, like):
    """`tensor` copied into the layout of `like` where `like` is a
    permutation of a contiguous tensor of its shape and `tensor` is neither
    contiguous nor such a permutation (the expanded ones of
    `y.sum().backward()`, say): it is then read in place like the others
    rather than made contiguous, in a layout of its own that would keep
    the adjoint's scan off the kernels of theirs. Else `tensor`."""
    if (like is None or tuple(like.shape) != tuple(tensor.shape)
            or tensor.is_contiguous() or _permuted_strides(tensor)
            or not _permuted_strides(like)):
        return tensor
    return _torch.empty_strided(tuple(tensor.shape), like.stride(),
                                dtype=tensor.dtype,
                                device=tensor.device).copy_(tensor)


def _in_place_layouts(spec, sizes):
    """Whether CUDA operands in another layout are read in place rather
    than copied to a contiguous one first. By default where the compiler
    says its kernels read them in place at least as fast
    (_recurrence.reads_time_contiguous_in_place: for cuda, the scans a warp
    per sequence takes, elementwise first-order ones); the other kernels
    would read a time-contiguous layout a line apart per thread, slower
    than a transposing copy (docs/Rationale.md).
    $RECURRENCE_IN_PLACE_LAYOUTS=1 reads every such layout in place (which
    saves the copies' memory), 0 copies them all."""
    setting = os.environ.get("RECURRENCE_IN_PLACE_LAYOUTS", "")
    if setting in ("0", "1"):
        return setting == "1"
    return _per_spec(
        _IN_PLACE, spec, _dims(sizes) + (sizes.get("sequences", 1),),
        lambda: _recurrence.reads_time_contiguous_in_place(
            spec, sizes, "cuda")[0])


_IN_PLACE = {}


def _scan_forward_cuda(spec, sizes, operands, source, dtype, out_shape,
                       last_shape):
    """The scan compiled for the GPU, run on torch's current stream: the
    output in the operands' `dtype`, the final state in the state's.

    Where _in_place_layouts says so, operands that are permutations of
    contiguous tensors (Mamba's [B, N, T] passed as its transposed
    [B, T, N] view) are read in place, through the kernels compiled for
    their layout, and the output takes the layout of the input it is shaped
    like (`source`: the input, or the key of a factored one); that holds
    where the kernels are compiled for the call's sizes. Other operands are
    made contiguous."""
    shapes = [out_shape] + ([last_shape] if spec["final_state"] else [])
    arg_strides = _caller_layouts(spec, sizes, operands)
    out_strides = (arg_strides[source]
                   if tuple(operands[source].shape) == tuple(out_shape)
                   else None)
    compiled = _cuda_compiled(spec, _with_layouts(sizes, arg_strides,
                                                  [out_strides]))
    return _call_in_layouts(compiled, operands, shapes,
                            [dtype, _state_dtype(dtype)])


def _caller_layouts(spec, sizes, tensors):
    """The strides of each tensor that is read (or written) in place in
    its own layout, None for one made contiguous: see _in_place_layouts."""
    if all(t.is_contiguous() for t in tensors) or not _in_place_layouts(
            spec, sizes):
        return [None] * len(tensors)
    return [_permuted_strides(t) for t in tensors]


def _with_layouts(sizes, arg_strides, result_strides):
    """`sizes` with the caller's layouts stated, where there are any."""
    if not any(arg_strides) and not any(result_strides):
        return sizes
    return dict(sizes, arg_strides=arg_strides, result_strides=result_strides)


def _call_in_layouts(compiled, args, shapes, dtypes):
    """Calls `compiled` on `args`, each read in place where the entry
    states its layout (else made contiguous), into new results of `shapes`
    and `dtypes` in the layouts it states for them. (Layouts are stated
    where the kernels are compiled for the call's sizes.)"""
    device = args[0].device
    arg_layouts, result_layouts = compiled.strides()
    args = [t.detach() if layout else t.detach().contiguous()
            for t, layout in zip(args, arg_layouts)]
    results = [_torch.empty_strided(
                   tuple(shape), _recurrence.stated_strides(shape, layout),
                   dtype=dtype, device=device)
               for shape, dtype, layout in zip(shapes, dtypes,
                                               result_layouts)]
    return _call_cuda(compiled, args, results)


def _call_cuda(compiled, args, results):
    """Calls a function compiled for cuda on contiguous CUDA tensors, on
    torch's current stream of their device. The runtime makes that device's
    context current; torch's device guard restores the caller's after the
    call, when it was another one."""
    device = args[0].device
    if _torch.cuda.current_device() == (device.index or 0):
        _call_device(compiled, args, results, device)
    else:
        with _torch.cuda.device(device):
            _call_device(compiled, args, results, device)
    return results


def _call_device(compiled, args, results, device):
    compiled.call_device([_device_view(t) for t in args],
                         [_device_view(t) for t in results],
                         _torch.cuda.current_stream(device).cuda_stream or 1)


def _device_view(tensor):
    """(address, NumPy dtype, shape, strides in elements) of a CUDA tensor
    that the checks above accepted."""
    return (tensor.data_ptr(), _TORCH_TO_NUMPY[tensor.dtype],
            tuple(tensor.shape), tuple(tensor.stride()))


def _device_cotangents(spec, operands, grad_out, grad_final, out_shape,
                       last_shape):
    """The cotangents an adjoint on the operands' device takes: the
    output's, then with a final state the final state's; absent ones are
    zeros (the final state's of the state's dtype)."""
    device, dtype = operands[0].device, operands[0].dtype
    cotangents = [grad_out if grad_out is not None else _torch.zeros(
        tuple(out_shape), dtype=dtype, device=device)]
    if spec["final_state"]:
        cotangents.append(grad_final if grad_final is not None else
                          _torch.zeros(tuple(last_shape),
                                       dtype=_state_dtype(dtype),
                                       device=device))
    return cotangents


def _scan_backward_cuda(spec, sizes, operands, grad_out, grad_final,
                        out_shape, last_shape, results=None):
    """The adjoint compiled for the GPU: one gradient per operand, in the
    operand's dtype, from the output's cotangent (and the final state's),
    reading the states from the forward's `results` when given. As in the
    forward, arguments in another layout are read in place where
    _in_place_layouts says so, and each gradient takes its operand's
    layout."""
    results = list(results or [])
    # Every argument is converted to the dtype the adjoint takes.
    cotangents = _device_cotangents(spec, operands, grad_out, grad_final,
                                    out_shape, last_shape)
    if _in_place_layouts(spec, sizes):
        cotangents[0] = _in_layout_of(cotangents[0], next(
            (t for t in results[:1] + list(operands)
             if tuple(t.shape) == tuple(out_shape) and _permuted_strides(t)),
            None))
    args = list(operands) + results + cotangents
    arg_strides = _caller_layouts(spec, sizes, args)
    compiled = _cuda_compiled(
        spec, _with_layouts(sizes, arg_strides, arg_strides[:len(operands)]),
        gradient=api.gradient_kind(results))
    _, arg_dtypes, _, result_dtypes = compiled.signature()
    args = [t.to(api.torch_dtype(_torch, d)) for t, d in zip(args,
                                                             arg_dtypes)]
    return _call_in_layouts(compiled, args, [t.shape for t in operands],
                            [api.torch_dtype(_torch, d)
                             for d in result_dtypes])


def _scan_backward(transition, b, init, readout, grad_out, grad_final,
                   structure, reverse, matrix, return_final_state, schedule,
                   chunk_size, offsets=None, results=None):
    """The gradient of every operand but offsets, from the compiler's
    adjoint; with the forward's `results` (output[, final state]), one that
    reads the states from the output rather than recomputing them."""
    spec, out_shape, last_shape, sizes = _layout(
        transition, b, init, readout, structure, reverse, matrix,
        return_final_state, schedule, chunk_size, offsets)
    operands = _operands(transition, b, init, readout, offsets)
    differentiable = len(operands) - (offsets is not None)
    if b[0].is_cuda:
        return _scan_backward_cuda(
            spec, sizes, operands, grad_out, grad_final, out_shape,
            last_shape, results)[:differentiable]
    cotangents = _host_cotangents(spec, b[0].dtype, grad_out, grad_final,
                                  out_shape, last_shape)
    # At static sizes, where the CPU's adjoint runs faster (its reverse scan
    # 1.6x at (8, 16384, 1536): bench/cpu_backward.py).
    grads = api._gradients(spec, [_numpy(t) for t in operands],
                           *(cotangents + [None])[:2], last_shape,
                           sizes=_specialized(spec, sizes,
                                              api.gradient_kind(results),
                                              "cpu"),
                           results=results and [_numpy(r) for r in results])
    return [_tensor(g) for g in grads[:differentiable]]


def _host_cotangents(spec, dtype, grad_out, grad_final, out_shape,
                     last_shape):
    """The cotangents the gradient function takes, as arrays: the output's
    (in the operands' dtype `dtype`), then with a final state the final
    state's (in the state's); zeros for None."""
    out_dtype, state_dtype = api.spec_dtypes(spec)[:2]
    cotangents = [np.zeros(out_shape, out_dtype) if grad_out is None else
                  _numpy(grad_out.to(dtype))]
    if spec["final_state"]:
        cotangents.append(
            np.zeros(last_shape, state_dtype) if grad_final is None else
            _numpy(grad_final.to(_state_dtype(dtype))))
    return cotangents


def _scan_second_backward(transition, b, init, readout, grad_out,
                          grad_final, gbars, structure, reverse, matrix,
                          return_final_state, schedule, chunk_size,
                          offsets=None):
    """The double backward: the gradients of every operand and of the
    cotangents the adjoint took (grad_out, then grad_final when the scan
    returns its final state) for the cotangents `gbars` of the adjoint's
    results, from the compiler's second-order gradient (compiled for these
    sizes), on the operands' device."""
    spec, out_shape, last_shape, sizes = _layout(
        transition, b, init, readout, structure, reverse, matrix,
        return_final_state, schedule, chunk_size, offsets)
    # The offsets are an argument of the gradient function too, whose
    # (integer) result for them takes a zero cotangent and gets none.
    operands = _operands(transition, b, init, readout, offsets)
    gbars = list(gbars) + [None] * (offsets is not None)
    empty = 0 in (sizes["steps"], sizes["size"], sizes["columns"]) or \
        0 in sizes["batch"]
    if b[0].is_cuda and not empty:
        return _without(offsets, len(operands), _scan_second_backward_cuda(
            spec, sizes, operands, grad_out, grad_final, gbars, out_shape,
            last_shape))
    # On the host (an empty CUDA problem too: nothing runs there).
    device = b[0].device
    host = [None if t is None else t.detach().cpu()
            for t in [grad_out, grad_final] + list(gbars)]
    grad_out, grad_final, gbars = host[0], host[1], host[2:]
    operands = [t.detach().cpu() for t in operands]
    dtype = api.spec_dtypes(spec)[0]
    arguments = [_numpy(t) for t in operands] + _host_cotangents(
        spec, b[0].dtype, grad_out, grad_final, out_shape, last_shape)
    gbars = [np.zeros(tuple(t.shape), dtype if t.is_floating_point() else
                      _numpy(t).dtype) if g is None else
             _numpy(g.to(t.dtype)) for g, t in zip(gbars, operands)]
    if empty:
        # Nothing to compile: every gradient is zero but the final state's
        # cotangent, which init's gradient passes through when T = 0.
        grads = [np.zeros_like(x) for x in arguments]
        if init is not None and spec["final_state"] and \
                sizes["steps"] == 0:
            grads[-1] = gbars[len(transition) + len(b)].reshape(
                grads[-1].shape).copy()
    else:
        grads = api._second_gradients(spec, arguments, gbars, sizes)
    return _without(offsets, len(operands),
                    [_tensor(g).to(device) for g in grads])


def _without(offsets, count, grads):
    """`grads` of the `count` operands and then the cotangents without the
    offsets' (the last operand, when given)."""
    return grads if offsets is None else grads[:count - 1] + grads[count:]


def _scan_second_backward_cuda(spec, sizes, operands, grad_out, grad_final,
                               gbars, out_shape, last_shape):
    """The double backward compiled for the GPU at these sizes: the
    gradients of the operands and of the cotangents (absent ones are
    zeros) for the cotangents `gbars` of the adjoint's results, each
    shaped like its argument."""
    device = operands[0].device
    cotangents = _device_cotangents(spec, operands, grad_out, grad_final,
                                    out_shape, last_shape)
    arguments = list(operands) + cotangents
    gbars = [_torch.zeros_like(t) if g is None else g
             for g, t in zip(gbars, operands)]
    compiled = api.compiled_scan(dict(spec, target="cuda"), gradient=2,
                                 sizes=sizes)
    _, arg_dtypes, _, result_dtypes = compiled.signature()
    args = [t.detach().to(api.torch_dtype(_torch, d)).contiguous()
            for t, d in zip(arguments + gbars, arg_dtypes)]
    results = [_torch.empty(tuple(t.shape), dtype=api.torch_dtype(_torch, d),
                            device=device)
               for t, d in zip(arguments, result_dtypes)]
    return _call_cuda(compiled, args, results)


def _unpack(tensors, counts):
    """The op's tensor inputs from their flat list: (transition, b, init,
    readout, offsets), with counts (len(transition), len(b), has init, has
    readout, has offsets)."""
    n, m, has_init, has_readout, has_offsets = counts
    rest = iter(tensors[n + m:])
    return (list(tensors[:n]), list(tensors[n:n + m]),
            next(rest) if has_init else None,
            next(rest) if has_readout else None,
            next(rest) if has_offsets else None)


def _counts(transition, b, init, readout, offsets):
    return (len(transition), len(b), init is not None, readout is not None,
            offsets is not None)


def _split_grads(grads, transition, b, init, readout):
    """The per-operand gradient list, arranged as the op's differentiable
    inputs (transition, b, init, readout)."""
    return _unpack(grads, _counts(transition, b, init, readout, None))[:4]


class _Scan(_torch.autograd.Function):
    """scan and its adjoint, for torch without torch.library.custom_op;
    `args` holds the op's non-tensor arguments and operand counts."""

    @staticmethod
    def forward(ctx, args, *tensors):
        counts, params = args
        transition, b, init, readout, offsets = _unpack(tensors, counts)
        ctx.args = args
        outputs = _scan_forward(transition, b, init, readout, *params,
                                offsets=offsets)
        # The outputs too: the adjoint reads the states there.
        ctx.count = len(tensors)
        ctx.save_for_backward(*tensors, *outputs)
        return tuple(outputs) if len(outputs) > 1 else outputs[0]

    @staticmethod
    def backward(ctx, *grads):
        saved = ctx.saved_tensors
        tensors, results = saved[:ctx.count], list(saved[ctx.count:])
        result = _ScanBackward.apply(ctx.args, len(tensors), results,
                                     *tensors, *grads)
        result = list(result) if isinstance(result, tuple) else [result]
        # (offsets, last when given, get none.)
        result = result + [None] * (len(ctx.needs_input_grad) - 1 -
                                    len(result))
        return (None,) + tuple(
            g if needed else None
            for g, needed in zip(result, ctx.needs_input_grad[1:]))


class _ScanBackward(_torch.autograd.Function):
    """The adjoint of _Scan, differentiable once more: its backward is the
    compiler's second-order gradient."""

    @staticmethod
    def forward(ctx, args, count, results, *tensors):
        # `results`, the forward's, are read as constants: this function's
        # own gradient is the total one with respect to the operands.
        counts, params = args
        transition, b, init, readout, offsets = _unpack(tensors[:count],
                                                        counts)
        cotangents = tensors[count:]
        ctx.args, ctx.count = args, count
        ctx.save_for_backward(*tensors)
        result = _scan_backward(transition, b, init, readout, cotangents[0],
                                cotangents[1] if len(cotangents) > 1 else
                                None, *params, offsets=offsets,
                                results=results)
        return tuple(result)

    @staticmethod
    @once_differentiable
    def backward(ctx, *gbars):
        counts, params = ctx.args
        tensors = ctx.saved_tensors
        transition, b, init, readout, offsets = _unpack(tensors[:ctx.count],
                                                        counts)
        cotangents = tensors[ctx.count:]
        grads = _scan_second_backward(
            transition, b, init, readout, cotangents[0],
            cotangents[1] if len(cotangents) > 1 else None, list(gbars),
            *params, offsets=offsets)
        differentiable = ctx.count - (offsets is not None)
        grads = (list(grads[:differentiable]) +
                 [None] * (offsets is not None) + list(grads[differentiable:]))
        return (None, None, None) + tuple(
            g if needed else None
            for g, needed in zip(grads, ctx.needs_input_grad[3:]))


def _scan_function(transition, b, init, readout, structure, reverse, matrix,
                   return_final_state, schedule, chunk_size, offsets=None):
    """recurrence::scan where torch has no custom_op: the autograd
    function."""
    counts = _counts(transition, b, init, readout, offsets)
    params = (structure, reverse, matrix, return_final_state, schedule,
              chunk_size)
    out = _Scan.apply((counts, params), *_operands(transition, b, init,
                                                   readout, offsets))
    return list(out) if isinstance(out, tuple) else [out]


def scan(a, b, *, structure="diagonal", init=None, reverse=False,
         schedule="auto", chunk_size=None, readout=None,
         return_final_state=False, matrix=None, out=None,
         final_state_out=None, offsets=None):
    """``recurrence.scan`` on torch tensors, differentiable in every float
    tensor argument (see ``recurrence.scan`` for the layouts; b may be a
    tuple (k, v) of a factored input). ``offsets`` (``cu_seqlens``, an
    int32 or int64 tensor [S + 1] on the operands' device) packs S
    sequences along T, each with its own init and final state. ``out`` /
    ``final_state_out`` tensors receive the results in place, as torch's
    out= arguments do, and like them are not differentiable."""
    transitions = ([] if a is None else list(a) if isinstance(a, (tuple, list))
                   else [a])
    operands = api._structure(structure)["operands"]
    tensors = [_check_tensor(n, x, narrow=True)
               for n, x in zip(operands or ["a"], transitions)]
    if isinstance(a, (tuple, list)) and len(operands) < 2:
        raise TypeError(f"a: expected a tensor for structure '{structure}'")
    if len(operands) > 1 and (not isinstance(a, (tuple, list)) or
                              len(a) != len(operands)):
        raise TypeError(f"a: expected a tuple ({', '.join(operands)}) for "
                        f"structure '{structure}'")
    factored = isinstance(b, (tuple, list))
    if factored and len(b) != 2:
        raise TypeError("b: expected a tensor or a tuple (k, v) of a "
                        "factored input k_t v_t^T")
    inputs = list(b) if factored else [b]
    dtype = tensors[0].dtype if tensors else None
    for name, x in zip(["k", "v"] if factored else ["b"], inputs):
        tensors.append(_check_tensor(name, x, dtype, narrow=True))
        dtype = tensors[-1].dtype
    extra = [(n, x) for n, x in (("init", init), ("readout", readout))
             if x is not None]
    tensors += [_check_tensor(n, x, _state_dtype(dtype) if n == "init"
                              else dtype, narrow=True) for n, x in extra]
    if offsets is not None:
        offsets = _offsets_tensor(offsets)
    _check_device(tensors + ([offsets] if offsets is not None else []))

    init_t = dict(extra).get("init")
    readout_t = dict(extra).get("readout")
    count = len(transitions)
    params = (structure, bool(reverse), bool(matrix),
              bool(return_final_state), schedule, chunk_size)
    if out is None and final_state_out is None:
        if chunk_size is not None and (isinstance(chunk_size, bool) or
                                       not isinstance(chunk_size, int) or
                                       chunk_size < 1):
            raise ValueError(f"chunk_size: expected a positive int, got "
                             f"{chunk_size!r}")
        results = _scan_op(tensors[:count], tensors[count:count + len(
            inputs)], init_t, readout_t, *params[:-1], chunk_size or 0,
            offsets)
        return tuple(results) if return_final_state else results[0]
    if tensors[count].is_cuda:
        raise ValueError("out=: not taken with CUDA tensors yet")
    spec, out_shape, last_shape, _ = _layout(
        tensors[:count], tensors[count:count + len(inputs)], init_t,
        readout_t, *params, offsets=offsets)
    if offsets is not None:
        _check_offsets(offsets, out_shape, spec)
        tensors.append(offsets)
    arrays = [_numpy(t) for t in tensors]
    if _torch.is_grad_enabled() and any(t.requires_grad for t in tensors):
        raise ValueError("out=: functions with out= arguments don't support "
                         "automatic differentiation, but one of the "
                         "arguments requires grad")
    if final_state_out is not None and not return_final_state:
        raise ValueError("final_state_out: needs return_final_state=True")
    outs = []
    for name, tensor, shape in (("out", out, out_shape),
                                ("final_state_out", final_state_out,
                                 last_shape)):
        if tensor is not None:
            _check_tensor(name, tensor, dtype if name == "out" else
                          _state_dtype(dtype), narrow=True)
            _check_shape(name, tensor, shape)
            if tensor.requires_grad:
                raise ValueError(f"{name}: an out= tensor must not require "
                                 f"grad")
        outs.append(tensor)
    if (out is not None and final_state_out is not None and
            np.may_share_memory(_numpy(out), _numpy(final_state_out))):
        raise ValueError("final_state_out: must not overlap out")
    results = api._run(spec, arrays, out_shape, last_shape,
                       [None if t is None else _numpy(t) for t in outs])
    # Written in place behind autograd's back: bump the versions, as torch's
    # own out= kernels do, so that a graph that saved them notices.
    bump = getattr(getattr(_torch.autograd, "graph", None),
                   "increment_version", None)
    for t in outs:
        if t is not None and bump is not None:
            bump(t)
    # The out= tensors, and new tensors for results not asked for in place.
    tensors = tuple(t if t is not None else _tensor(r)
                    for r, t in zip(results, outs))
    return tensors if return_final_state else tensors[0]


def _offsets_tensor(offsets):
    """`offsets` as an int64 tensor, its kind and rank checked (its values
    are checked where the scan runs)."""
    if not isinstance(offsets, _torch.Tensor):
        raise TypeError(f"offsets: expected a torch.Tensor, got "
                        f"{type(offsets).__name__}")
    if offsets.dtype not in (_torch.int32, _torch.int64):
        raise TypeError(f"offsets: expected integers (torch.int32 or "
                        f"torch.int64), got {offsets.dtype}")
    if offsets.dim() != 1 or offsets.shape[0] < 1:
        raise ValueError(f"offsets: expected a 1-d tensor [S + 1] of "
                         f"sequence bounds, got shape {tuple(offsets.shape)}")
    return offsets.to(_torch.int64).contiguous()


def step(a, b, state, *, structure="diagonal", readout=None, matrix=None):
    """One decoding step, differentiable in every tensor argument: the new
    state, or (y, new state) with a readout (see ``recurrence.step``)."""
    axis = api.step_axis(structure, a, b, matrix)
    if axis < 0:
        raise ValueError("b: has fewer dims than one step of the structure "
                         "takes")
    a1, b1, c1 = (api._with_time(x, axis, lambda y, i: _check_tensor(
        "step operand", y).unsqueeze(i)) for x in (a, b, readout))
    h, last = scan(a1, b1, structure=structure, init=state,
                   schedule="sequential", readout=c1,
                   return_final_state=True, matrix=matrix)
    return last if readout is None else (h.squeeze(axis), last)


#===------------------------------------------------------------------------===#
# Models: torch's elementwise ops around scan
#===------------------------------------------------------------------------===#

_GATES = {
    "exp": _torch.exp,
    "sigmoid": _torch.sigmoid,
    "softplus": _torch.nn.functional.softplus,
    "abs": _torch.abs,
}


def normalize_gates(raw, *, f="exp"):
    """f(raw) divided by the sum of its absolute values over the last axis."""
    api.check_choice("f", f, tuple(_GATES))
    _check_tensor("raw", raw)
    if raw.dim() < 1:
        raise ValueError(f"raw: expected at least 1 dimension ([..., K]), got "
                         f"shape {tuple(raw.shape)}")
    w = _GATES[f](raw)
    return w / w.abs().sum(-1, keepdim=True)


def _check_shape(name, value, expected):
    if tuple(value.shape) != tuple(expected):
        raise ValueError(f"{name}: expected shape {tuple(expected)}, got "
                         f"{tuple(value.shape)}")


def _model_structures(model, **options):
    """models.model_structures, which asks the compiler: a constant to
    torch.compile, which calls it while tracing rather than tracing it."""
    return models.model_structures(model, **options)


_assume_constant = getattr(getattr(_torch, "compiler", None),
                           "assume_constant_result", None)
if _assume_constant is not None:
    _model_structures = _assume_constant(_model_structures)


def hlru(gates, v, *, init=None, return_final_state=False, schedule="auto",
         chunk_size=None):
    """H-LRU of order m (see ``recurrence.hlru``); gates [..., T, N, m+1]."""
    _check_tensor("gates", gates)
    _check_tensor("v", v, gates.dtype)
    if gates.dim() < 3 or gates.shape[-1] < 2:
        raise ValueError(f"gates: expected shape [..., T, N, m+1] with m >= "
                         f"1, got {tuple(gates.shape)}")
    _check_shape("v", v, gates.shape[:-1])
    return _model("hlru", (gates, v, init), None, return_final_state,
                  schedule, chunk_size)


def _composed_hlru(gates, v, init, *, return_final_state, schedule,
                   chunk_size, offsets):
    """H-LRU composed of a scan and torch ops (see
    `_composed_selective_ssm`); it has no packed form."""
    order = gates.shape[-1] - 1
    a = gates[..., :order].transpose(-1, -2)  # [..., T, m, N]
    [structure] = _model_structures("hlru", param=order)
    return scan(a, gates[..., order] * v, structure=structure, init=init,
                return_final_state=return_final_state, schedule=schedule,
                chunk_size=chunk_size)


def bdlru(gates, v, *, init=None, return_final_state=False, schedule="auto",
          chunk_size=None, offsets=None):
    """BD-LRU with blocks of m (see ``recurrence.bdlru``); gates
    [..., T, H, m, m+1], v [..., T, H*m]; with ``offsets``, over packed
    sequences, init and the final state [..., S, H*m]."""
    _check_tensor("gates", gates)
    _check_tensor("v", v, gates.dtype)
    if gates.dim() < 4 or gates.shape[-1] != gates.shape[-2] + 1:
        raise ValueError(f"gates: expected shape [..., T, H, m, m+1], got "
                         f"{tuple(gates.shape)}")
    m = gates.shape[-2]
    _check_shape("v", v, gates.shape[:-3] + (gates.shape[-3] * m,))
    return _model("bdlru", (gates, v, init), offsets, return_final_state,
                  schedule, chunk_size)


def _composed_bdlru(gates, v, init, *, return_final_state, schedule,
                    chunk_size, offsets):
    """BD-LRU composed of a scan and torch ops (see
    `_composed_selective_ssm`)."""
    m = gates.shape[-2]
    a0 = gates[..., m].reshape(v.shape)
    [structure] = _model_structures("bdlru", param=m)
    return scan(gates[..., :m], a0 * v, structure=structure, init=init,
                return_final_state=return_final_state, schedule=schedule,
                chunk_size=chunk_size, offsets=offsets)


def _elu1(x):
    return _torch.where(x > 0, x + 1, _torch.exp(_torch.clamp(x, max=0)))


def linear_attention(q, k, v, *, feature_map="elu1", normalize=True,
                     eps=1e-8, init=None, return_final_state=False,
                     schedule="auto", chunk_size=None, offsets=None):
    """Linear attention (see ``recurrence.linear_attention``), over packed
    sequences with ``offsets`` (cu_seqlens). The state is S, and normalized
    the pair (S, c): ``init`` takes it, ``return_final_state`` returns it
    after y."""
    api.check_choice("feature_map", feature_map, ("elu1", "identity"))
    _check_tensor("q", q)
    _check_tensor("k", k, q.dtype)
    _check_tensor("v", v, q.dtype)
    if q.dim() < 2:
        raise ValueError(f"q: expected at least 2 dimensions ([..., T, dk]), "
                         f"got shape {tuple(q.shape)}")
    _check_shape("k", k, q.shape)
    _check_shape("v", v, q.shape[:-1] + v.shape[-1:])
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or eps < 0:
        raise ValueError(f"eps: expected a non-negative number, got {eps!r}")
    inits = [None, None]
    if init is not None:
        if normalize != isinstance(init, (tuple, list)) or (
                normalize and len(init) != 2):
            raise TypeError("init: expected " + (
                "a pair (S, c)" if normalize else "S, one tensor"))
        inits = list(init) if normalize else [init, None]
    out = _model("linear_attention", (q, k, v, *inits), offsets,
                 return_final_state, schedule, chunk_size,
                 feature_map=feature_map, normalize=normalize, eps=eps)
    if return_final_state and normalize:
        return out[0], tuple(out[1:])
    return out


def _composed_linear_attention(q, k, v, init, normalizer_init, *,
                               return_final_state, schedule, chunk_size,
                               offsets, feature_map, normalize, eps):
    """Linear attention composed of scans and torch ops (see
    `_composed_selective_ssm`)."""
    phi = _elu1 if feature_map == "elu1" else (lambda x: x)
    fq, fk = phi(q), phi(k)
    structures = _model_structures("linear_attention", normalize=normalize)
    run = lambda b, i, state: scan(
        None, b, structure=structures[i], readout=fq, init=state,
        return_final_state=return_final_state, schedule=schedule,
        chunk_size=chunk_size, offsets=offsets)
    num = run((fk, v), 0, init)
    if not normalize:
        return num
    den = run(fk, 1, normalizer_init)
    if not return_final_state:
        return num / _torch.clamp(den, min=eps)[..., None]
    (num, S), (den, c) = num, den
    return num / _torch.clamp(den, min=eps)[..., None], (S, c)


def delta_rule(q, k, v, beta, *, gate=None, init=None,
               return_final_state=False, schedule="auto", chunk_size=None,
               offsets=None):
    """The (gated) delta rule as dplr<1> (see ``recurrence.delta_rule``);
    with ``offsets``, over packed sequences, init and the final state
    [..., S, dk, dv]."""
    _check_tensor("q", q)
    for name, x in (("k", k), ("v", v), ("beta", beta)):
        _check_tensor(name, x, q.dtype)
    if q.dim() < 2:
        raise ValueError(f"q: expected at least 2 dimensions ([..., T, dk]), "
                         f"got shape {tuple(q.shape)}")
    _check_shape("k", k, q.shape)
    _check_shape("v", v, q.shape[:-1] + v.shape[-1:])
    _check_shape("beta", beta, q.shape[:-1])
    if gate is not None:
        _check_tensor("gate", gate, q.dtype)
        _check_shape("gate", gate, q.shape[:-1])
    return _model("delta_rule", (q, k, v, beta, gate, init), offsets,
                  return_final_state, schedule, chunk_size)


def _composed_delta_rule(q, k, v, beta, gate, init, *, return_final_state,
                         schedule, chunk_size, offsets):
    """The delta rule composed of a scan and torch ops (differentiable to
    any order, traceable by torch.compile, on any device)."""
    g = _torch.ones_like(beta) if gate is None else gate
    d = g[..., None].expand(k.shape)
    U = -(g * beta)[..., None, None] * k[..., None]
    V = k[..., None]
    [structure] = _model_structures("delta_rule",
                                          gated=gate is not None)
    return scan((d, U, V), (beta[..., None] * k, v), structure=structure,
                init=init, readout=q, return_final_state=return_final_state,
                schedule=schedule, chunk_size=chunk_size, offsets=offsets)


class _SelectiveGates(_torch.autograd.Function):
    """a[..., t, n, d] = exp(delta[..., t, d] A[d, n]), contiguous. The
    product, the exp and their gradients through torch's autograd build five
    [..., T, N, Dm] tensors; this builds the gates once and, in a backward
    that is not differentiated again, one temporary (da a) besides a
    product it reduces."""

    @staticmethod
    def forward(ctx, delta, A):
        a = (delta[..., None, :] * A.transpose(0, 1).contiguous()).exp_()
        ctx.save_for_backward(delta, A, a)
        return a

    @staticmethod
    def backward(ctx, da):
        delta, A, a = ctx.saved_tensors
        g = da * a
        batch = tuple(range(g.dim() - 2))
        dA = (g * delta[..., None, :]).sum(batch).transpose(0, 1)
        if _torch.is_grad_enabled():
            # (create_graph: out of place, so that this is differentiable.)
            ddelta = (g * A.transpose(0, 1)).sum(-2)
        else:
            ddelta = g.mul_(A.transpose(0, 1)).sum(-2)
        return ddelta, dA


def _runs_compiled_model(tensors, offsets):
    """Whether a model op runs as the compiler's model op and its derived
    gradient rather than composed of scans and torch ops: eagerly (not
    while torch.compile traces), on f32 or f64 tensors, all on the CPU or,
    unless $RECURRENCE_CUDA_MODELS=0, all on one CUDA device (there, not
    over packed sequences, and not empty)."""
    if _compiling():
        return False
    given = [t for t in tensors if t is not None]
    if not all(type(t) in (_torch.Tensor, _torch.nn.Parameter)
               for t in given + ([] if offsets is None else [offsets])):
        return False
    # (Other dtypes, and an init of another dtype, get the composed form's
    # errors.)
    if given[0].dtype not in (_torch.float32, _torch.float64) or any(
            t.dtype != given[0].dtype for t in given):
        return False
    if all(t.device.type == "cpu" for t in given):
        return offsets is None or offsets.device.type == "cpu"
    if not (offsets is None and given[0].is_cuda and _cuda_models() and
            all(t.numel() > 0 for t in given)):
        return False
    _check_device(given)
    return True


def _compiling():
    """Whether torch.compile is tracing (torch.compiler.is_compiling from
    torch 2.3, torch._dynamo's before)."""
    compiler = getattr(_torch, "compiler", None)
    is_compiling = getattr(compiler, "is_compiling", None) or getattr(
        getattr(_torch, "_dynamo", None), "is_compiling", None)
    return bool(is_compiling and is_compiling())


def _cuda_models():
    """Whether model ops on CUDA tensors run compiled (the default: faster
    than composed in 13 of the 16 timings of the README's Performance,
    forward and forward + backward on two GPUs); $RECURRENCE_CUDA_MODELS=0
    composes them of scans and torch ops."""
    return os.environ.get("RECURRENCE_CUDA_MODELS", "1") != "0"


# The options of a compiled model's call that are not the model's own.
_CALL_OPTIONS = ("schedule", "chunk_size", "offsets")


def _model(model, named, offsets, return_final_state, schedule, chunk_size,
           **model_options):
    """`model` on its operands `named` (in models._OPERANDS' order, None
    where not given): compiled where it can run so, else composed. With
    `return_final_state`, its outputs flat either way: y, then each
    state's (S and c for linear attention's pair)."""
    out = _compiled_model(model, named, offsets, return_final_state,
                          schedule, chunk_size, **model_options)
    if out is not None:
        return out
    out = _COMPOSED[model](
        *named, return_final_state=return_final_state, schedule=schedule,
        chunk_size=chunk_size, offsets=offsets, **model_options)
    return _flat_outputs(out) if return_final_state else out


def _compiled_model(model, named, offsets, return_final_state, schedule,
                    chunk_size, **model_options):
    """`model` on its operands `named` (in models._OPERANDS' order, None
    where not given) as the compiler's model op with its derived gradient,
    when it can run so (`_runs_compiled_model`); else None. Its outputs
    flat: y, then each state's (S and c for a pair)."""
    if not _runs_compiled_model(named, offsets):
        return None
    options = dict(schedule=schedule, chunk_size=chunk_size,
                   offsets=None if offsets is None else
                   offsets.detach().cpu().numpy(), **model_options)
    given = [v is not None for v in named]
    out = _CompiledModel.apply(model, options, return_final_state, given,
                               *(v for v in named if v is not None))
    return out if return_final_state else out[0]


class _CompiledModel(_torch.autograd.Function):
    """A model as one compiled model op, forward, and its gradient as the
    compiler derives it (gates and states recomputed inside, nothing held
    between the two). A backward that is itself differentiated
    (create_graph) goes through the model's composed form instead."""

    @staticmethod
    def forward(ctx, model, options, return_final_state, given, *operands):
        ctx.model, ctx.options, ctx.given = model, options, given
        ctx.save_for_backward(*operands)
        return _run_model(model, _named_operands(given, operands),
                          return_final_state, options)

    @staticmethod
    def backward(ctx, *cotangents):
        operands = ctx.saved_tensors
        if _torch.is_grad_enabled():
            # Differentiated again: the composed form's gradient, a
            # function of the operands themselves (saved inputs keep their
            # history).
            offsets = ctx.options["offsets"]
            # A tensor passed twice (B and C the same) is differentiated
            # once per use: through an alias each.
            operands = [v.view_as(v) for v in operands]
            with _torch.enable_grad():
                outs = _COMPOSED[ctx.model](
                    *_named_operands(ctx.given, operands),
                    return_final_state=len(cotangents) > 1,
                    **dict(ctx.options, offsets=None if offsets is None
                           else _torch.from_numpy(offsets)))
            outs = _flat_outputs(outs)
            wanted = [v for v in operands if v.requires_grad]
            grads = iter(_torch.autograd.grad(
                outs, wanted, cotangents, create_graph=True,
                allow_unused=True))
            return (None,) * 4 + tuple(
                next(grads) if v.requires_grad else None for v in operands)
        return (None,) * 4 + _model_gradient(
            ctx.model, _named_operands(ctx.given, operands), cotangents,
            ctx.options)


def _flat_outputs(outs):
    """A model's outputs as one tuple: y, then each state's."""
    if not isinstance(outs, tuple):
        return (outs,)
    y, last = outs
    return (y,) + (tuple(last) if isinstance(last, tuple) else (last,))


def _model_operands(model, named, options):
    """models._OPERANDS of `model` on the operands' memory (CUDA tensors,
    contiguous, or NumPy views of CPU tensors), checked already: (args,
    the results' flat shapes and shapes, spec options, target)."""
    cuda = named[0].is_cuda
    arrays = [None if v is None else
              v.detach().contiguous() if cuda else _numpy(v) for v in named]
    model_options = {key: value for key, value in options.items()
                     if key not in _CALL_OPTIONS}
    return models._OPERANDS[model](
        *arrays, options["offsets"], as_array=_checked,
        **model_options), "cuda" if cuda else "cpu"


def _run_model(model, named, return_final_state, options):
    """The model op compiled for the operands' device (on torch's current
    stream for CUDA): its outputs, flat."""
    (args, flat, shapes, spec), target = _model_operands(model, named,
                                                         options)
    count = len(flat) if return_final_state else 1
    compiled = models._model(model, _numpy_dtype(named[0]), target=target,
                             final_state=return_final_state,
                             schedule=options["schedule"],
                             chunk_size=options["chunk_size"],
                             shapes=([a.shape for a in args], flat[:count]),
                             **spec)
    outs = compiled(*args, result_shapes=[tuple(f) for f in flat[:count]])
    outs = outs if isinstance(outs, tuple) else (outs,)
    return tuple(_as_tensor(o).reshape(shape)
                 for o, shape in zip(outs, shapes))


def _model_gradient(model, named, cotangents, options):
    """The model op's derived gradient compiled for the operands' device:
    one gradient per given operand."""
    cuda = named[0].is_cuda
    bars = [c.contiguous() if cuda else _numpy(c) for c in cotangents]
    grads = models._gradient(
        model, _model_operands(model, named, options)[0], named, bars[0],
        (bars[1] if len(bars) == 2 else tuple(bars[1:])) if len(bars) > 1
        else None, options["schedule"], options["chunk_size"],
        as_array=_checked, dtype=_numpy_dtype(named[0]),
        target="cuda" if cuda else "cpu")
    return tuple(_as_tensor(g) for g in grads)


def _as_tensor(value):
    """A compiled call's result as a tensor: CUDA results are already."""
    if isinstance(value, np.ndarray):
        return _torch.from_numpy(np.ascontiguousarray(value))
    return value


def _checked(name, value, dtype=None):
    """An array or tensor that the torch function has checked, as it is."""
    return value


def _numpy_dtype(tensor):
    return np.float64 if tensor.dtype == _torch.float64 else np.float32


def _named_operands(given, operands):
    """The operands in models._OPERANDS' order: None where not given."""
    it = iter(operands)
    return [next(it) if g else None for g in given]


def selective_ssm(x, delta, A, B, C, D=None, *, init=None,
                  return_final_state=False, schedule="auto",
                  chunk_size=None, offsets=None):
    """Mamba's selective SSM (see ``recurrence.selective_ssm``); with
    ``offsets``, over packed sequences, init and the final state
    [..., S, N, Dm]."""
    _check_tensor("x", x)
    for name, value in (("delta", delta), ("A", A), ("B", B), ("C", C)):
        _check_tensor(name, value, x.dtype)
    if x.dim() < 2 or A.dim() != 2:
        raise ValueError(f"x: expected [..., T, Dm] and A [Dm, N], got "
                         f"{tuple(x.shape)} and {tuple(A.shape)}")
    dm, n = x.shape[-1], A.shape[-1]
    _check_shape("delta", delta, x.shape)
    _check_shape("A", A, (dm, n))
    _check_shape("B", B, x.shape[:-1] + (n,))
    _check_shape("C", C, x.shape[:-1] + (n,))
    if D is not None:
        _check_tensor("D", D, x.dtype)
        _check_shape("D", D, (dm,))
    return _model("selective_ssm", (x, delta, A, B, C, D, init), offsets,
                  return_final_state, schedule, chunk_size)


def _composed_selective_ssm(x, delta, A, B, C, D, init, *,
                            return_final_state, schedule, chunk_size,
                            offsets):
    """The selective SSM composed of a scan and torch ops (differentiable
    to any order, traceable by torch.compile, on any device)."""
    # Per-element gates, contiguous: torch lays out a broadcast result like
    # its strided operand, which would cost a transposing copy into the
    # kernel.
    a = _SelectiveGates.apply(delta, A)
    [structure] = _model_structures("selective_ssm")
    out = scan(a, (B, delta * x), structure=structure, init=init, readout=C,
               return_final_state=return_final_state, schedule=schedule,
               chunk_size=chunk_size, offsets=offsets)
    y, last = out if return_final_state else (out, None)
    if D is not None:
        y = y + D * x
    return (y, last) if return_final_state else y


#===------------------------------------------------------------------------===#
# Decode steps: each model on one step, differentiable like the model
#===------------------------------------------------------------------------===#

def _decode(model, operands, state, **options):
    """`model` on operands of one step each, (name, tensor, dims after the
    time axis) or as is (None name), from `state`: (y, the new state)."""
    args = []
    for name, x, trailing in operands:
        if name is not None:
            _check_tensor(name, x)
            if x.dim() < trailing:
                raise ValueError(f"{name}: expected at least {trailing} "
                                 f"dims, got shape {tuple(x.shape)}")
            x = x.unsqueeze(x.dim() - trailing)
        args.append(x)
    y, last = model(*args, init=state, return_final_state=True,
                    schedule="sequential", **options)
    return y.squeeze(y.dim() - 2), last


def linear_attention_step(q, k, v, state, *, feature_map="elu1",
                          normalize=True, eps=1e-8):
    """One decoding step of ``linear_attention`` (see
    ``recurrence.linear_attention_step``): (y, the new state)."""
    return _decode(linear_attention,
                   [("q", q, 1), ("k", k, 1), ("v", v, 1)], state,
                   feature_map=feature_map, normalize=normalize, eps=eps)


def delta_rule_step(q, k, v, beta, state, *, gate=None):
    """One decoding step of ``delta_rule``: (y, the new state)."""
    if gate is not None:
        _check_tensor("gate", gate)
        gate = gate.unsqueeze(-1)
    return _decode(delta_rule, [("q", q, 1), ("k", k, 1), ("v", v, 1),
                                ("beta", beta, 0)], state, gate=gate)


def selective_ssm_step(x, delta, A, B, C, state, D=None):
    """One decoding step of ``selective_ssm``: (y, the new state)."""
    return _decode(selective_ssm,
                   [("x", x, 1), ("delta", delta, 1), (None, A, 0),
                    ("B", B, 1), ("C", C, 1), (None, D, 0)], state)


def hlru_step(gates, v, state):
    """One decoding step of ``hlru``: (h, the new m most recent states)."""
    return _decode(hlru, [("gates", gates, 2), ("v", v, 1)], state)


def bdlru_step(gates, v, state):
    """One decoding step of ``bdlru``: (h, the new state)."""
    return _decode(bdlru, [("gates", gates, 3), ("v", v, 1)], state)


#===------------------------------------------------------------------------===#
# torch.library registration
#===------------------------------------------------------------------------===#

_SCAN_SCHEMA = ("(Tensor[] transition, Tensor[] b, Tensor? init, "
                "Tensor? readout, str structure, bool reverse, bool matrix, "
                "bool return_final_state, str schedule, int chunk_size, "
                "Tensor? offsets=None) -> Tensor[]")

# The models, with their keyword arguments as the schema's.
_MODELS = {
    "linear_attention": ("Tensor q, Tensor k, Tensor v, str feature_map, "
                         "bool normalize, float eps, Tensor? offsets=None",
                         "linear_attention",
                         ["feature_map", "normalize", "eps", "offsets"]),
    "delta_rule": ("Tensor q, Tensor k, Tensor v, Tensor beta, Tensor? gate, "
                   "Tensor? init, Tensor? offsets=None", "delta_rule",
                   ["gate", "init", "offsets"]),
    "selective_ssm": ("Tensor x, Tensor delta, Tensor A, Tensor B, Tensor C, "
                      "Tensor? D, Tensor? init, Tensor? offsets=None",
                      "selective_ssm", ["init", "offsets"]),
    "hlru": ("Tensor gates, Tensor v, Tensor? init", "hlru", ["init"]),
    "bdlru": ("Tensor gates, Tensor v, Tensor? init, Tensor? offsets=None",
              "bdlru", ["init", "offsets"]),
}


# Each model's composed form (scans and torch ops), by name: a table rather
# than globals(), which torch.compile cannot trace.
_COMPOSED = {name: globals()["_composed_" + name] for name in _MODELS}


def _define_models(lib, dispatch_keys):
    for name, (schema, function, keywords) in _MODELS.items():
        lib.define(f"{name}({schema}) -> Tensor")

        # (A trailing argument with a default may be left out.)
        def model_kernel(*args, function=globals()[function],
                         keywords=keywords,
                         count=schema.count(",") + 1 - len(keywords)):
            named = dict(zip(keywords, args[count:]))
            return function(*args[:count], **named)

        for key in dispatch_keys:
            lib.impl(name, model_kernel, key)


def _register_custom_ops():
    """torch >= 2.4: recurrence::scan, recurrence::scan_backward and
    recurrence::scan_backward_backward as custom ops with fake (shape)
    functions and autograd formulas (the first two: double backward works),
    so that torch.compile traces them without a graph break. The models are
    composite: they decompose into scan and torch's own ops."""
    from typing import List, Optional
    Tensor = _torch.Tensor
    library = _torch.library

    @library.custom_op("recurrence::scan", mutates_args=())
    def scan_op(transition: List[Tensor], b: List[Tensor],
                init: Optional[Tensor], readout: Optional[Tensor],
                structure: str, reverse: bool, matrix: bool,
                return_final_state: bool, schedule: str,
                chunk_size: int,
                offsets: Optional[Tensor] = None) -> List[Tensor]:
        return _scan_forward(transition, b, init, readout, structure,
                             reverse, matrix, return_final_state, schedule,
                             chunk_size, offsets)

    @scan_op.register_fake
    def _(transition, b, init, readout, structure, reverse, matrix,
          return_final_state, schedule, chunk_size, offsets=None):
        _, out_shape, last_shape, _ = _layout(
            transition, b, init, readout, structure, reverse, matrix,
            return_final_state, schedule, chunk_size, offsets)
        shapes = [out_shape] + ([last_shape] if return_final_state else [])
        dtypes = [b[0].dtype, _state_dtype(b[0].dtype)]
        return [b[0].new_empty(tuple(shape), dtype=dtype)
                for shape, dtype in zip(shapes, dtypes)]

    @library.custom_op("recurrence::scan_backward", mutates_args=())
    def scan_backward_op(transition: List[Tensor], b: List[Tensor],
                         init: Optional[Tensor], readout: Optional[Tensor],
                         grad_out: Optional[Tensor],
                         grad_final: Optional[Tensor], structure: str,
                         reverse: bool, matrix: bool,
                         return_final_state: bool, schedule: str,
                         chunk_size: int,
                         offsets: Optional[Tensor] = None,
                         output: Optional[Tensor] = None,
                         final: Optional[Tensor] = None) -> List[Tensor]:
        # `output` and `final`, the forward's results when given: the
        # adjoint reads the states there.
        results = [r for r in (output, final) if r is not None]
        return _scan_backward(transition, b, init, readout, grad_out,
                              grad_final, structure, reverse, matrix,
                              return_final_state, schedule, chunk_size,
                              offsets, results or None)

    @scan_backward_op.register_fake
    def _(transition, b, init, readout, grad_out, grad_final, *params):
        _layout(transition, b, init, readout, *params[:7])
        return [t.new_empty(t.shape) for t in _operands(transition, b, init,
                                                        readout)]

    def setup_context(ctx, inputs, output):
        transition, b, init, readout = inputs[:4]
        # (offsets, with its default, may or may not be among the inputs.)
        offsets = inputs[10] if len(inputs) > 10 else None
        ctx.counts = _counts(transition, b, init, readout, offsets)
        ctx.params = inputs[4:10]
        operands = _operands(transition, b, init, readout, offsets)
        # The results too: the adjoint reads the states there.
        ctx.count = len(operands)
        ctx.save_for_backward(*operands, *output)

    def backward(ctx, grads):
        saved = ctx.saved_tensors
        transition, b, init, readout, offsets = _unpack(saved[:ctx.count],
                                                        ctx.counts)
        results = list(saved[ctx.count:]) + [None]
        result = _torch.ops.recurrence.scan_backward(
            transition, b, init, readout, grads[0],
            grads[1] if len(grads) > 1 else None, *ctx.params, offsets,
            results[0], results[1])
        # None for each parameter and for offsets when given: the
        # dispatcher drops a trailing argument equal to its default, and
        # backward returns one gradient per argument passed.
        return _split_grads(result, transition, b, init, readout) + (
            None,) * (len(ctx.params) + (offsets is not None))

    scan_op.register_autograd(backward, setup_context=setup_context)

    @library.custom_op("recurrence::scan_backward_backward", mutates_args=())
    def scan_second_op(transition: List[Tensor], b: List[Tensor],
                       init: Optional[Tensor], readout: Optional[Tensor],
                       grad_out: Optional[Tensor],
                       grad_final: Optional[Tensor], gbars: List[Tensor],
                       structure: str, reverse: bool, matrix: bool,
                       return_final_state: bool, schedule: str,
                       chunk_size: int,
                       offsets: Optional[Tensor] = None) -> List[Tensor]:
        return _scan_second_backward(
            transition, b, init, readout, grad_out, grad_final, gbars,
            structure, reverse, matrix, return_final_state, schedule,
            chunk_size, offsets)

    @scan_second_op.register_fake
    def _(transition, b, init, readout, grad_out, grad_final, gbars,
          *params):
        spec, out_shape, last_shape, _ = _layout(transition, b, init,
                                                 readout, *params)
        dtype = b[0].dtype
        return [t.new_empty(t.shape) for t in _operands(
            transition, b, init, readout)] + [
            b[0].new_empty(tuple(out_shape), dtype=dtype)] + (
            [b[0].new_empty(tuple(last_shape), dtype=_state_dtype(dtype))]
            if spec["final_state"] else [])

    def setup_backward_context(ctx, inputs, output):
        transition, b, init, readout, grad_out, grad_final = inputs[:6]
        offsets = inputs[12] if len(inputs) > 12 else None
        ctx.counts = _counts(transition, b, init, readout, offsets)
        ctx.params = inputs[6:12]
        # The forward's results (inputs 13, 14) get no gradient: the
        # operands' below is the total one.
        ctx.inputs = len(inputs)
        ctx.given = (grad_out is not None, grad_final is not None)
        ctx.save_for_backward(
            *_operands(transition, b, init, readout, offsets),
            *[g for g in (grad_out, grad_final) if g is not None])

    def backward_backward(ctx, gbars):
        saved = list(ctx.saved_tensors)
        count = sum(ctx.counts[:2]) + sum(ctx.counts[2:])
        transition, b, init, readout, offsets = _unpack(saved[:count],
                                                        ctx.counts)
        rest = iter(saved[count:])
        grad_out = next(rest) if ctx.given[0] else None
        grad_final = next(rest) if ctx.given[1] else None
        operands = _operands(transition, b, init, readout)
        gbars = [_torch.zeros_like(t) if g is None else g
                 for g, t in zip(gbars, operands)]
        result = _torch.ops.recurrence.scan_backward_backward(
            transition, b, init, readout, grad_out, grad_final, gbars,
            *ctx.params, offsets)
        k = len(operands)
        cotangents = list(result[k:]) + [None]
        return _split_grads(result[:k], transition, b, init, readout) + (
            cotangents[0] if ctx.given[0] else None,
            cotangents[1] if ctx.given[1] else None) + (
            None,) * (ctx.inputs - 6)

    scan_backward_op.register_autograd(backward_backward,
                                       setup_context=setup_backward_context)
    lib = library.Library("recurrence", "FRAGMENT")
    _define_models(lib, ["CompositeImplicitAutograd"])
    return lib, _torch.ops.recurrence.scan


def _register_legacy():
    """Older torch: recurrence::scan and the models with CPU and Autograd
    kernels that run the functions above."""
    library = getattr(_torch, "library", None)
    if library is None or not hasattr(library, "Library"):
        return None, _scan_function
    lib = library.Library("recurrence", "DEF")
    lib.define("scan" + _SCAN_SCHEMA)
    lib.impl("scan", _scan_function, "CPU")
    lib.impl("scan", _scan_function, "Autograd")
    _define_models(lib, ["CPU", "Autograd"])
    return lib, _scan_function


_library, _scan_op = (_register_custom_ops()
                      if hasattr(getattr(_torch, "library", None),
                                 "custom_op") else _register_legacy())

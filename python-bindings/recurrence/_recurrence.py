"""The native core: libRecurrence.so's C API through ctypes.

The library carries its own LLVM and MLIR and exports only the C API
(``include/recurrence-c/Recurrence.h``), so this module is plain Python: it
runs on any CPython 3 and NumPy without being built for them. The library is
found beside this file, or at ``$RECURRENCE_LIBRARY``.
"""

import ctypes
import json
import os
import struct
import weakref

import numpy as np

_c_char_pp = ctypes.POINTER(ctypes.c_void_p)  # char **error


# RecurrenceBuffer: {void *data; int32_t dtype, rank; const int64_t
# *sizes, *strides;}, packed with struct (faster than ctypes.Structure).
_BUFFER = struct.Struct("=QiiQQ")
_BUFFER_SIZE = _BUFFER.size

try:  # NumPy has no bfloat16; ml_dtypes adds one where it is installed.
    import ml_dtypes
    BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:
    ml_dtypes = None
    BFLOAT16 = np.dtype(np.uint16)  # raw bf16 bits

# The element types of the C API (RECURRENCE_F32, ...) by their MLIR names,
# with the NumPy dtype that holds each.
# i32 and i64 hold sequence offsets.
DTYPES = {"f32": np.dtype(np.float32), "f64": np.dtype(np.float64),
          "f16": np.dtype(np.float16), "bf16": BFLOAT16,
          "i32": np.dtype(np.int32), "i64": np.dtype(np.int64)}
_CODES = {"f32": 0, "f64": 1, "f16": 2, "bf16": 3, "i32": 4, "i64": 5}
_CODE_OF_DTYPE = {DTYPES[name]: code for name, code in _CODES.items()}


def _library_path():
    path = os.environ.get("RECURRENCE_LIBRARY")
    if path:
        return path
    return os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "libRecurrence.so")


def _load():
    path = _library_path()
    try:
        lib = ctypes.CDLL(path)
    except OSError as error:
        raise ImportError(f"recurrence: cannot load {path}: {error}; set "
                          f"RECURRENCE_LIBRARY to libRecurrence.so") from None
    # Strings the library returns are malloc'ed: take them as void pointers
    # and free them after reading.
    text = ctypes.c_void_p
    signatures = {
        "recurrenceVersion": (ctypes.c_char_p, []),
        "recurrenceRunPipeline": (text, [ctypes.c_char_p, ctypes.c_char_p,
                                         _c_char_pp]),
        "recurrenceCompile": (ctypes.c_void_p, [ctypes.c_char_p,
                                                ctypes.c_char_p, _c_char_pp]),
        "recurrenceCompileFor": (ctypes.c_void_p, [ctypes.c_char_p,
                                                   ctypes.c_char_p,
                                                   ctypes.c_char_p,
                                                   _c_char_pp]),
        "recurrenceCallOnStream": (ctypes.c_int, [
            ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32,
            ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p, _c_char_pp]),
        "recurrenceCompileScan": (ctypes.c_void_p, [ctypes.c_char_p,
                                                    ctypes.c_int32,
                                                    _c_char_pp]),
        "recurrenceCompileScanAt": (ctypes.c_void_p, [ctypes.c_char_p,
                                                      ctypes.c_char_p,
                                                      ctypes.c_int32,
                                                      _c_char_pp]),
        "recurrenceCompileModel": (ctypes.c_void_p, [ctypes.c_char_p,
                                                     _c_char_pp]),
        "recurrenceCompileModelGradient": (ctypes.c_void_p,
                                           [ctypes.c_char_p, _c_char_pp]),
        "recurrenceSignature": (text, [ctypes.c_void_p, _c_char_pp]),
        # The buffers go as addresses (of _Buffer arrays).
        "recurrenceCall": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p,
                                          ctypes.c_int32, ctypes.c_void_p,
                                          ctypes.c_int32, _c_char_pp]),
        "recurrenceDestroy": (None, [ctypes.c_void_p]),
        "recurrenceFree": (None, [ctypes.c_void_p]),
        "recurrenceHostCacheStats": (None, [ctypes.POINTER(ctypes.c_int64)] *
                                     3),
        "recurrenceSetHostCacheLimit": (None, [ctypes.c_int64]),
        "recurrenceReleaseHostCache": (None, []),
        "recurrenceAllocateHostBuffer": (ctypes.c_void_p, [ctypes.c_int64]),
        "recurrenceFreeHostBuffer": (None, [ctypes.c_void_p]),
        "recurrenceStructures": (text, [_c_char_pp]),
        "recurrenceFitStructure": (text, [ctypes.c_char_p, _c_char_pp]),
        "recurrenceScanShapes": (text, [ctypes.c_char_p, ctypes.c_char_p,
                                        _c_char_pp]),
        "recurrenceScanIR": (text, [ctypes.c_char_p, ctypes.c_char_p,
                                    _c_char_pp]),
        "recurrenceModelScans": (text, [ctypes.c_char_p, _c_char_pp]),
        "recurrenceExplain": (text, [ctypes.c_char_p, ctypes.c_char_p,
                                     ctypes.c_char_p, ctypes.c_int64,
                                     _c_char_pp]),
        "recurrenceReadsTimeContiguousInPlace": (
            text, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                   _c_char_pp]),
    }
    for name, (restype, argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    return lib


_lib = _load()
version = _lib.recurrenceVersion().decode()


def _take(pointer, error):
    """The text of a returned string (freed), or ValueError with the
    library's message when it returned NULL."""
    if not pointer:
        raise ValueError(_message(error))
    try:
        return ctypes.string_at(pointer).decode()
    finally:
        _lib.recurrenceFree(pointer)


def _message(error):
    if not error:
        return "recurrence: unknown error"
    text = ctypes.string_at(error).decode(errors="replace")
    _lib.recurrenceFree(error)
    return text


def _query(function, *args):
    """Calls a JSON-answering function of the C API."""
    error = ctypes.c_void_p()
    encoded = [json.dumps(a).encode() if isinstance(a, (dict, list)) else
               a.encode() if isinstance(a, str) else a for a in args]
    pointer = function(*encoded, ctypes.byref(error))
    return json.loads(_take(pointer, error.value))


class Module:
    """MLIR text, parsed and verified, with pipelines run on it."""

    def __init__(self, text):
        self._text = text

    @staticmethod
    def parse(text):
        """Parses MLIR text (a dialect the library registers)."""
        if not isinstance(text, str):
            raise TypeError("Module.parse: expected the module text as a str")
        return Module(_run_pipeline(text, ""))

    def run_pipeline(self, pipeline):
        """Runs a textual pass pipeline, e.g.
        'builtin.module(recurrence-to-llvm)'."""
        if not isinstance(pipeline, str):
            raise TypeError("run_pipeline: expected the pipeline as a str")
        self._text = _run_pipeline(self._text, pipeline)

    def __str__(self):
        return self._text


def _run_pipeline(text, pipeline):
    error = ctypes.c_void_p()
    pointer = _lib.recurrenceRunPipeline(text.encode(), pipeline.encode(),
                                         ctypes.byref(error))
    return _take(pointer, error.value)


class Compiled:
    """A compiled entry point, called on NumPy arrays."""

    def __init__(self, handle):
        self._handle = handle
        self._destroy = _lib.recurrenceDestroy
        s = _query(_lib.recurrenceSignature, ctypes.c_void_p(handle))
        self._signature = ([tuple(x) for x in s["args"]],
                           [DTYPES[t] for t in s["arg_types"]],
                           [tuple(x) for x in s["results"]],
                           [DTYPES[t] for t in s["result_types"]])
        self._strides = tuple(
            [None if x is None else tuple(x) for x in s[key]]
            for key in ("arg_strides", "result_strides"))
        self._result_dtypes = self._signature[3]
        self._plans = {}

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            self._destroy(handle)

    def signature(self):
        """(argument shapes, argument dtypes, result shapes, result
        dtypes), with -1 for a dynamic size."""
        return self._signature

    def strides(self):
        """(argument strides, result strides) in elements: the layout each
        buffer must have, as the entry states it, or None (contiguous, or
        staged through a contiguous copy on the CPU); -1 for a dynamic
        stride."""
        return self._strides

    def __call__(self, args, result_shapes, outs=()):
        """Calls the entry on `args`; results have `result_shapes` and are
        written into `outs` where given (checked by the caller), else into
        new arrays."""
        if len(result_shapes) != len(self._result_dtypes):
            raise ValueError(f"expected {len(self._result_dtypes)} result "
                             f"shape(s), got {len(result_shapes)}")
        results = []
        for index, (shape, dtype) in enumerate(zip(result_shapes,
                                                   self._result_dtypes)):
            out = outs[index] if index < len(outs) else None
            if out is None:
                out = empty_strided(shape, self._strides[1][index], dtype)
            results.append(out)
        arrays = list(args) + results
        buffers = []
        for array in arrays:
            code = _CODE_OF_DTYPE.get(array.dtype)
            if code is None:
                raise TypeError(f"expected arrays of float32, float64, "
                                f"float16, bfloat16, int32 or int64, got "
                                f"{array.dtype}")
            buffers.append((array.ctypes.data, code, array.shape,
                            array.strides, array.itemsize))
        self._call(buffers, len(args), None)
        return results

    def call_device(self, args, results, stream):
        """Calls the entry, compiled for cuda, on device buffers given as
        (address, NumPy dtype, shape, strides in elements), on `stream` (a
        CUstream address; 0: the library's own, waited for)."""
        buffers = [(address, _CODE_OF_DTYPE[dtype], tuple(shape),
                    tuple(strides), 1)
                   for address, dtype, shape, strides in list(args) + results]
        self._call(buffers, len(args), stream or None)

    def _plan(self, key):
        """What a call on buffers of one layout (`key`: code, shape, strides
        and their unit per buffer) passes besides the data addresses: the
        RecurrenceBuffer records' format and fields, and the sizes and
        strides (in elements) they point to, kept alive with the plan."""
        plan = self._plans.get(key)
        if plan is not None:
            return plan
        meta = []
        for _, shape, strides, unit in key:
            meta.extend(shape)
            meta.extend(stride // unit for stride in strides)
        block = (ctypes.c_int64 * max(1, len(meta)))(*meta)
        base, at, fields = ctypes.addressof(block), 0, []
        for code, shape, _, _ in key:
            rank = len(shape)
            fields.append([0, code, rank, base + 8 * at,
                           base + 8 * (at + rank)])
            at += 2 * rank
        plan = (struct.Struct("=" + "QiiQQ" * len(key)), fields, block)
        if len(self._plans) < 64:
            self._plans[key] = plan
        return plan

    def _call(self, buffers, num_args, stream):
        records, fields, meta = self._plan(tuple(
            (code, shape, strides, unit)
            for _, code, shape, strides, unit in buffers))
        values = []
        for (address, _, _, _, _), field in zip(buffers, fields):
            values.append(address or 0)
            values.extend(field[1:])
        block = ctypes.create_string_buffer(records.size)
        records.pack_into(block, 0, *values)
        base = ctypes.addressof(block)
        error = ctypes.c_void_p()
        if stream is None:
            status = _lib.recurrenceCall(
                self._handle, base, num_args, base + num_args * _BUFFER_SIZE,
                len(buffers) - num_args, ctypes.byref(error))
        else:
            status = _lib.recurrenceCallOnStream(
                self._handle, base, num_args, base + num_args * _BUFFER_SIZE,
                len(buffers) - num_args, ctypes.c_void_p(stream),
                ctypes.byref(error))
        del meta  # alive until the call returned
        if status:
            raise ValueError(_message(error.value))


def stated_strides(shape, layout):
    """The strides (in elements) of a new buffer of `shape` for a `layout`
    that an entry states: its strides, contiguous ones where it has none
    (None) or a stride is dynamic (-1)."""
    # A running product: NumPy's reductions cost microseconds a call.
    dense, step = [], 1
    for size in reversed(shape):
        dense.append(step)
        step *= int(size)
    dense.reverse()
    if layout is None:
        return tuple(dense)
    return tuple(d if s < 0 else s for s, d in zip(layout, dense))


def empty_strided(shape, layout, dtype):
    """A new array of `shape` with stated_strides(shape, layout)."""
    if layout is None:
        return _empty(int(np.prod(shape, dtype=np.int64)), dtype).reshape(shape)
    strides = stated_strides(shape, layout)
    extent = 0 if 0 in shape else 1 + sum(
        (size - 1) * stride for size, stride in zip(shape, strides))
    itemsize = np.dtype(dtype).itemsize
    return np.lib.stride_tricks.as_strided(
        _empty(extent, dtype), shape,
        [stride * itemsize for stride in strides])


# Below this, NumPy's own allocation (the cache keeps blocks from 1 MB up).
_HOST_BUFFER_BYTES = 1 << 20


def _empty(count, dtype):
    """A new 1-D array of `count` elements. A large one comes from the
    library's host cache and goes back to it when the last view of it is
    freed: a result of the same size in the next call reuses its pages,
    where a fresh block from libc (mmap) faults every page in again."""
    dtype = np.dtype(dtype)
    nbytes = count * dtype.itemsize
    if nbytes < _HOST_BUFFER_BYTES:
        return np.empty(count, dtype)
    pointer = _lib.recurrenceAllocateHostBuffer(nbytes)
    if not pointer:
        raise MemoryError(f"cannot allocate {nbytes} bytes")
    block = (ctypes.c_char * nbytes).from_address(pointer)
    weakref.finalize(block, _lib.recurrenceFreeHostBuffer, pointer)
    return np.frombuffer(block, dtype, count)


def _compiled(pointer, error):
    if not pointer:
        raise ValueError(_message(error.value))
    return Compiled(pointer)


def compile_module(module, entry, target="cpu"):
    """JIT-compiles one function on tensors through -recurrence-to-llvm
    (target "cpu") or -recurrence-to-nvvm ("cuda")."""
    error = ctypes.c_void_p()
    return _compiled(_lib.recurrenceCompileFor(
        str(module).encode(), entry.encode(), target.encode(),
        ctypes.byref(error)), error)


def compile_scan(spec, gradient=False, sizes=None):
    """Compiles one recurrence.scan (or its gradient) on dynamic shapes, or
    specialized to `sizes` (dict of batch, steps, size, columns)."""
    error = ctypes.c_void_p()
    return _compiled(_lib.recurrenceCompileScanAt(
        json.dumps(spec).encode(),
        None if sizes is None else json.dumps(_sizes(sizes)).encode(),
        int(gradient), ctypes.byref(error)), error)


def compile_scan_grad(spec):
    """Compiles the gradient of one recurrence.scan."""
    return compile_scan(spec, gradient=True)


def compile_model(spec, gradient=False):
    """Compiles one model op on dynamic shapes, or the gradient that
    -recurrence-differentiate derives for it: (operands..., one cotangent
    per result) -> one gradient per operand."""
    error = ctypes.c_void_p()
    compile = (_lib.recurrenceCompileModelGradient if gradient
               else _lib.recurrenceCompileModel)
    return _compiled(compile(json.dumps(spec).encode(), ctypes.byref(error)),
                     error)


def host_cache():
    """What compiled CPU code's cache of large freed blocks holds: bytes in
    use, bytes kept for reuse, and how many allocations reused one."""
    values = [ctypes.c_int64() for _ in range(3)]
    _lib.recurrenceHostCacheStats(*(ctypes.byref(v) for v in values))
    return dict(zip(("live_bytes", "cached_bytes", "reuses"),
                    (v.value for v in values)))


def set_host_cache_limit(limit):
    """The most bytes the cache keeps (0: none); frees what is over it."""
    _lib.recurrenceSetHostCacheLimit(int(limit))


def release_host_cache():
    """Frees every block the cache keeps."""
    _lib.recurrenceReleaseHostCache()


def model_scans(spec):
    """The scans a model op decomposes into: structure name and flags."""
    return _query(_lib.recurrenceModelScans, spec)


def structures():
    """Each structure's name, syntax, operand names, step ranks, layouts,
    and whether it takes a parameter or a per-element operand."""
    return _query(_lib.recurrenceStructures)


def fit_structure(name, steps, per_element, columns, input_size):
    """(parameter, N) with which a structure's operands have the given step
    shapes; (None, -1) when none fits."""
    answer = _query(_lib.recurrenceFitStructure, dict(
        name=name, steps=[list(s) for s in steps],
        per_element=bool(per_element), columns=int(columns),
        input_size=int(input_size)))
    return answer["param"], answer["size"]


def scan_shapes(spec, sizes):
    """Expected operand, output and final-state shapes."""
    answer = _query(_lib.recurrenceScanShapes, spec, _sizes(sizes))
    return answer["operands"], answer["output"], answer["final_state"]


def scan_ir(spec, sizes):
    """The IR of one scan at static shapes."""
    error = ctypes.c_void_p()
    pointer = _lib.recurrenceScanIR(json.dumps(spec).encode(),
                                    json.dumps(_sizes(sizes)).encode(),
                                    ctypes.byref(error))
    return _take(pointer, error.value)


def explain(spec, sizes, target="cpu", cores=0):
    """The cost model's candidates, cheapest first: (schedule, chunk,
    seconds)."""
    answer = _query(_lib.recurrenceExplain, spec, _sizes(sizes), target,
                    int(cores))
    return [(c["schedule"], c["chunk_size"], c["seconds"]) for c in answer]


def reads_time_contiguous_in_place(spec, sizes, target):
    """(whether `target`'s kernels read the scan's operands in place, where
    time is contiguous in the caller's buffers, at least as fast as from a
    transposing copy; the reason when not)."""
    answer = _query(_lib.recurrenceReadsTimeContiguousInPlace, spec,
                    _sizes(sizes), target)
    return answer["in_place"], answer["reason"]


def _sizes(sizes):
    return dict(batch=[int(x) for x in sizes["batch"]],
                steps=int(sizes["steps"]), size=int(sizes["size"]),
                columns=int(sizes["columns"]),
                sequences=int(sizes.get("sequences", 1)),
                **{key: [None if x is None else [int(y) for y in x]
                         for x in sizes[key]]
                   for key in ("arg_strides", "result_strides")
                   if key in sizes})

"""Bad arguments raise ValueError / TypeError naming the argument."""

import pathlib

import numpy as np
import pytest
import recurrence as rec

# A diagonal scan on dynamic shapes with a gate after it, as user IR.
GATED_DIAGONAL = (pathlib.Path(__file__).parent /
                  "gated_diagonal.mlir").read_text()


def test_shape_mismatch_names_argument_and_shapes():
    a = np.zeros((2, 5, 3))
    with pytest.raises(ValueError, match=r"b: expected shape \(2, 5, 3\), "
                                         r"got \(2, 5, 4\)"):
        rec.scan(a, np.zeros((2, 5, 4)))
    with pytest.raises(ValueError, match="init: expected shape"):
        rec.scan(a, np.zeros((2, 5, 3)), init=np.zeros((2, 4)))
    with pytest.raises(ValueError, match="readout: expected shape"):
        rec.scan(a, np.zeros((2, 5, 3)), readout=np.zeros((2, 5)))


def test_dtypes_and_types():
    a = np.zeros((2, 5, 3))
    with pytest.raises(TypeError, match="b: expected dtype float64"):
        rec.scan(a, np.zeros((2, 5, 3), np.float32))
    with pytest.raises(TypeError, match="expected dtype float32, float64, float16 or bfloat16"):
        rec.scan(a.astype(np.int32), a)
    with pytest.raises(TypeError, match="numpy.ndarray"):
        rec.scan([[0.0]], a)


def test_bad_names_and_options():
    a = np.zeros((2, 5, 3))
    with pytest.raises(ValueError, match="structure: expected one of"):
        rec.scan(a, a, structure="banded")
    with pytest.raises(ValueError, match="schedule: expected one of"):
        rec.scan(a, a, schedule="fast")
    with pytest.raises(ValueError, match="chunk_size"):
        rec.scan(a, a, chunk_size=0)
    with pytest.raises(TypeError, match=r"\(d, U, V\)"):
        rec.scan(a, a, structure="dplr")
    # N = H m = 4 from the blocks, so b is the one with the wrong shape.
    with pytest.raises(ValueError, match=r"b: expected shape \(2, 5, 4\)"):
        rec.scan(np.zeros((2, 5, 2, 2, 2)), np.zeros((2, 5, 5)),
                 structure="block_diagonal")


def test_model_functions_check_arguments():
    q = np.zeros((2, 4, 3))
    with pytest.raises(ValueError, match="k: expected shape"):
        rec.linear_attention(q, np.zeros((2, 4, 2)), q)
    with pytest.raises(ValueError, match="beta: expected shape"):
        rec.delta_rule(q, q, q, np.zeros((2, 5)))
    with pytest.raises(ValueError, match="f: expected one of"):
        rec.normalize_gates(q, f="tanh")
    with pytest.raises(ValueError, match="A: expected shape"):
        rec.selective_ssm(q, q, np.zeros((2, 2)), q, q)
    with pytest.raises(ValueError, match="gates: expected last axis"):
        rec.bdlru(np.zeros((2, 4, 3, 2, 2)), np.zeros((2, 4, 6)))
    with pytest.raises(ValueError, match="chunk_size: expected a positive"):
        rec.delta_rule(q, q, q, np.zeros((2, 4)), chunk_size=0)
    with pytest.raises(ValueError, match="schedule: expected one of"):
        rec.hlru(np.zeros((2, 4, 3, 3)), np.zeros((2, 4, 3)),
                 schedule="blelloch")


def test_bad_ir_raises_value_error_with_location():
    with pytest.raises(ValueError, match="cannot parse"):
        rec.Module.parse("func.func @f(")
    with pytest.raises(ValueError, match="expected transition operand #0"):
        rec.compile("""
func.func @f(%a: tensor<4x3xf32>, %b: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %h_dest = tensor.empty() : tensor<4x2xf32>
  %h = recurrence.scan diagonal transition(%a : tensor<4x3xf32>)
      input(%b : tensor<4x2xf32>)
      outs(%h_dest : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %h : tensor<4x2xf32>
}""", "f")


def test_structures_come_from_the_compiler():
    table = rec.structures()
    assert list(table) == ["identity", "scalar", "diagonal", "block_diagonal",
                           "dplr", "dense", "higher_order"]
    assert table["identity"]["operands"] == []
    assert table["dplr"]["operands"] == ["d", "U", "V"]
    assert table["dplr"]["syntax"] == "dplr<r>"
    assert table["dplr"]["layouts"] == ["[..., T, N]", "[..., T, N, r]",
                                        "[..., T, N, r]"]
    assert table["block_diagonal"]["layouts"] == ["[..., T, N/m, m, m]"]
    assert table["diagonal"]["per_element"]
    assert not table["dense"]["per_element"]
    assert [name for name, s in table.items() if s["parameter"]] == [
        "block_diagonal", "dplr", "higher_order"]


def test_transition_shapes_that_fit_no_structure():
    # Blocks must be square: no m makes [H, 3, 2] a block_diagonal<m> step.
    with pytest.raises(ValueError, match=r"a: shapes a \(2, 5, 4, 3, 2\) do "
                                         r"not fit structure "
                                         r"'block_diagonal<m>'"):
        rec.scan(np.zeros((2, 5, 4, 3, 2)), np.zeros((2, 5, 12)),
                 structure="block_diagonal")
    # U and V of one dplr<r> must agree on r.
    with pytest.raises(ValueError, match="do not fit structure 'dplr<r>'"):
        rec.scan((np.zeros((2, 5, 4)), np.zeros((2, 5, 4, 2)),
                  np.zeros((2, 5, 4, 3))), np.zeros((2, 5, 4)),
                 structure="dplr")


def test_zero_channels_fit():
    # N = 0 is a valid (empty) state for every structure.
    h = rec.scan(np.zeros((2, 5, 0)), np.zeros((2, 5, 0)))
    assert h.shape == (2, 5, 0)
    h = rec.scan(np.zeros((2, 5)), np.zeros((2, 5, 0)), structure="scalar")
    assert h.shape == (2, 5, 0)


def test_checks_hold_after_a_layout_is_cached():
    """scan caches a checked layout per kinds, shapes and dtypes of its
    arguments; anything else is checked again."""
    a = np.full((2, 5, 3), 0.5)
    b = np.ones((2, 5, 3))
    first = rec.scan(a, b)
    np.testing.assert_array_equal(rec.scan(a, b), first)
    with pytest.raises(ValueError, match="b: expected shape"):
        rec.scan(a, np.ones((2, 5, 4)))
    with pytest.raises(TypeError, match="b: expected dtype float64"):
        rec.scan(a, b.astype(np.float32))
    with pytest.raises(TypeError, match="out: expected dtype float64"):
        rec.scan(a, b, out=np.empty((2, 5, 3), np.float32))
    with pytest.raises(ValueError, match="chunk_size"):
        rec.scan(a, b, chunk_size=[4])
    with pytest.raises(TypeError, match="b: expected"):
        rec.scan(a, [b])
    rec.scan(a, b, chunk_size=4)
    with pytest.raises(ValueError, match="chunk_size"):
        rec.scan(a, b, chunk_size=4.0)


def test_targets():
    """A scan compiles for cpu or cuda; cuda needs the NVIDIA driver, and
    without one the compile says so instead of failing later."""
    import ctypes.util
    from recurrence import _recurrence
    spec = dict(structure="diagonal", final_state=False, batch_rank=1)
    with pytest.raises(ValueError, match="unknown target 'tpu'"):
        _recurrence.compile_scan(dict(spec, target="tpu"))
    if ctypes.util.find_library("cuda") is None:
        with pytest.raises(ValueError, match="cannot load libcuda.so.1"):
            _recurrence.compile_scan(dict(spec, target="cuda"))
        with pytest.raises(ValueError, match="cannot load libcuda.so.1"):
            _recurrence.compile_scan(dict(spec, target="cuda"), gradient=True)
    # A model op likewise, and its derived gradient.
    from recurrence import models
    model = models._model_spec("selective_ssm", np.float32)
    for gradient in (False, True):
        with pytest.raises(ValueError, match="model spec: unknown target "
                                             "'tpu' \\(cpu or cuda\\)"):
            _recurrence.compile_model(dict(model, target="tpu"), gradient)
        if ctypes.util.find_library("cuda") is None:
            with pytest.raises(ValueError, match="cannot load libcuda.so.1"):
                _recurrence.compile_model(dict(model, target="cuda"),
                                          gradient)


def test_compile_targets():
    """recurrence.compile takes target "cpu" or "cuda"; a CUDA compile
    without a driver says so."""
    import ctypes.util
    text = GATED_DIAGONAL
    with pytest.raises(ValueError, match="target: expected one of"):
        rec.compile(text, "gated", target="tpu")
    if ctypes.util.find_library("cuda") is None:
        with pytest.raises(ValueError, match="cannot load libcuda.so.1"):
            rec.compile(text, "gated", target="cuda")


def test_device_arrays():
    """What a CUDA-compiled function takes: CUDA arrays, described by
    __cuda_array_interface__ (strides in bytes become elements)."""
    from recurrence.api import _device_array

    class Fake:
        def __init__(self, typestr, strides=None):
            self.__cuda_array_interface__ = dict(
                shape=(2, 3), typestr=typestr, data=(4096, False),
                strides=strides, version=3)

    assert _device_array("x", Fake("<f4")) == (4096, np.dtype(np.float32),
                                                (2, 3), (3, 1))
    assert _device_array("x", Fake("<f8", (8, 16))) == (
        4096, np.dtype(np.float64), (2, 3), (1, 2))
    assert _device_array("x", Fake("<i8"))[1] == np.dtype(np.int64)
    with pytest.raises(TypeError, match="x: unsupported element type '<u2'"):
        _device_array("x", Fake("<u2"))
    with pytest.raises(TypeError, match="x: expected a CUDA array"):
        _device_array("x", np.zeros(3))


class _HostArray:
    """A NumPy array seen through __cuda_array_interface__, so that a
    function compiled for the CPU can stand in for a CUDA one."""

    def __init__(self, array):
        self.array = array
        self.__cuda_array_interface__ = dict(
            shape=array.shape, typestr=array.dtype.str,
            data=(array.ctypes.data, False), strides=array.strides, version=3)


def test_cuda_compiled_call_path(monkeypatch):
    """CudaCompiled checks CUDA arrays against the signature's dtypes and
    shapes and passes them on with the C API's element codes: run here on
    host memory through a CPU-compiled function, with no stream."""
    import sys
    from recurrence.api import CudaCompiled
    text = GATED_DIAGONAL
    monkeypatch.setitem(sys.modules, "torch", None)
    gpu = CudaCompiled(rec.compile(text, "gated")._native, "gated")
    rng = np.random.default_rng(3)
    a = rng.uniform(0.5, 1, (2, 5, 3)).astype(np.float32)
    b = rng.uniform(-1, 1, (2, 5, 3)).astype(np.float32)
    out = np.zeros((2, 5, 3), np.float32)
    shapes = [(2, 5, 3)]
    gpu(_HostArray(a), _HostArray(b), result_shapes=shapes,
        outs=[_HostArray(out)])
    want = np.zeros_like(out, dtype=np.float64)
    h = np.zeros((2, 3))
    for t in range(5):
        h = a[:, t] * h + b[:, t]
        want[:, t] = h * b[:, t]
    np.testing.assert_allclose(out, want, rtol=2e-6, atol=2e-7)
    with pytest.raises(TypeError, match="argument 1: expected float32, got "
                                        "float64"):
        gpu(_HostArray(a), _HostArray(b.astype(np.float64)),
            result_shapes=shapes, outs=[_HostArray(out)])
    with pytest.raises(ValueError, match="pass outs="):
        gpu(_HostArray(a), _HostArray(b), result_shapes=shapes)


def test_torch_dtypes():
    """Each dtype of a compiled signature has its torch dtype."""
    torch = pytest.importorskip("torch")
    from recurrence import _recurrence
    from recurrence.api import torch_dtype
    assert [torch_dtype(torch, _recurrence.DTYPES[name])
            for name in ("f32", "f64", "f16", "bf16")] == [
        torch.float32, torch.float64, torch.float16, torch.bfloat16]


def test_model_shapes_that_do_not_fit_get_a_clear_error():
    """A model spec's arg_shapes and result_shapes (static sizes to compile
    for) must fit the model's operands; the compiler names what is wrong."""
    from recurrence import _recurrence, models
    spec = models._model_spec("delta_rule", np.float32)
    three, two = [2, 7, 4], [2, 7]
    args = [three, three, [2, 7, 5], two]

    def compile_with(arg_shapes, result_shapes, gradient=False):
        return _recurrence.compile_model(
            dict(spec, arg_shapes=arg_shapes, result_shapes=result_shapes),
            gradient)

    with pytest.raises(ValueError, match="arg_shapes: expected 4 shapes, "
                                         "got 3"):
        compile_with(args[:3], [[2, 7, 5]])
    with pytest.raises(ValueError, match="result_shapes: expected 1 shapes, "
                                         "got 2"):
        compile_with(args, [[2, 7, 5], [2, 4, 5]])
    with pytest.raises(ValueError, match="arg_shapes\\[3\\]: expected a shape "
                       "that fits 'tensor<\\?x\\?xf32>' with every size at "
                       "least 1 .*got \\[2, 7, 1\\]"):
        compile_with(args[:3] + [[2, 7, 1]], [[2, 7, 5]])
    with pytest.raises(ValueError, match="arg_shapes\\[0\\]: .*got "
                                         "\\[2, 0, 4\\]"):
        compile_with([[2, 0, 4]] + args[1:], [[2, 7, 5]], gradient=True)
    # Sizes that fit each type but not each other: the op's verifier.
    with pytest.raises(ValueError, match="expected v of shape \\[2, 7, 5\\]"
                                         ".*got \\[2, 6, 5\\]"):
        compile_with(args[:2] + [[2, 6, 5], two], [[2, 6, 5]])
    with pytest.raises(ValueError, match="model spec: 'arg_shapes' must be "
                                         "a list of lists of integers"):
        compile_with([[2, "7", 4]], [])
    with pytest.raises(ValueError, match="arg_shapes and result_shapes: "
                                         "give both"):
        compile_with(args, [])
    with pytest.raises(ValueError, match="arg_shapes\\[0\\]: expected fewer "
                                         "than 2\\^63 elements"):
        compile_with([[2 ** 40, 2 ** 40, 4]] + args[1:], [[2, 7, 5]])
    # hlru's gates end in m + 1 = 3, static in the type.
    hlru = models._model_spec("hlru", np.float32, param=2)
    with pytest.raises(ValueError, match="arg_shapes\\[0\\]: expected a shape "
                                         "that fits 'tensor<\\?x\\?x\\?x3xf32>'"):
        _recurrence.compile_model(dict(hlru, arg_shapes=[[1, 5, 4, 4],
                                                         [1, 5, 4]],
                                       result_shapes=[[1, 5, 4]]))

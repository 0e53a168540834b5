"""recurrence's torch ops under torch.library's checks and torch.compile.

With torch >= 2.4 the scan is a custom op with a fake (shape) function and
an autograd formula: opcheck must pass on every op, and torch.compile with
fullgraph=True must trace a model of scan and delta_rule with no graph
break and match eager, values and gradients. Older torch (Debian's 1.13)
has neither; there the ops are registered the older way and must run and
differentiate through torch.ops."""

import shutil

import numpy as np
import pytest
import torch

import recurrence.torch as rt

import reference
from test_models import delta_reference

CUSTOM_OPS = hasattr(torch.library, "custom_op")


def inputs(seed, dtype=torch.float64):
    rng = np.random.default_rng(seed)
    t = lambda *shape, low=None: torch.tensor(
        rng.uniform(low, 0.9, shape) if low is not None else
        rng.standard_normal(shape), dtype=dtype, requires_grad=True)
    return dict(a=t(2, 7, 4, low=-0.9), b=t(2, 7, 4), q=t(2, 7, 3),
                k=t(2, 7, 3) * 0.5, v=t(2, 7, 2), beta=t(2, 7, low=0.1))


def model(a, b, q, k, v, beta):
    """A small model: a diagonal scan feeding the values of a delta rule."""
    h, last = rt.scan(a, b, return_final_state=True)
    y = rt.delta_rule(q, k, v + h[..., :2], beta)
    return (y * y).sum() + last.sum()


def test_legacy_registration_runs_and_differentiates():
    if CUSTOM_OPS:
        # The custom op is what torch.ops.recurrence.scan is here.
        assert isinstance(rt._scan_op, torch._ops.OpOverloadPacket)
    x = inputs(1)
    h, last = torch.ops.recurrence.scan([x["a"]], [x["b"]], None, None,
                                        "diagonal", False, False, True,
                                        "auto", 0)
    want, want_last = reference.scan("diagonal", x["a"].detach().numpy(),
                                     x["b"].detach().numpy())
    np.testing.assert_allclose(h.detach().numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(last.detach().numpy(), want_last, rtol=1e-12)
    assert torch.autograd.gradcheck(
        lambda a, b: torch.ops.recurrence.scan(
            [a], [b], None, None, "diagonal", True, False, False,
            "chunked", 3)[0], (x["a"], x["b"]))
    y = torch.ops.recurrence.delta_rule(x["q"], x["k"], x["v"], x["beta"],
                                        None, None)
    want, _ = delta_reference(*(x[n].detach().numpy()
                                for n in ("q", "k", "v", "beta")), None,
                              None)
    np.testing.assert_allclose(y.detach().numpy(), want, rtol=1e-12)


def check_ops():
    x = inputs(2)
    for args in (
            ([x["a"]], [x["b"]], None, None, "diagonal", False, False, True,
             "auto", 0),
            ([x["a"]], [x["b"]], x["b"][:, 0], x["a"], "diagonal", True,
             False, False, "chunked", 4),
            ([], [x["q"], x["v"]], None, x["k"], "identity", False, False,
             True, "scan", 0)):
        torch.library.opcheck(torch.ops.recurrence.scan.default, args)
    torch.library.opcheck(
        torch.ops.recurrence.delta_rule.default,
        (x["q"], x["k"], x["v"], x["beta"], None, None))
    torch.library.opcheck(
        torch.ops.recurrence.linear_attention.default,
        (x["q"], x["k"], x["v"], "elu1", True, 1e-8))


BACKENDS = ["aot_eager"] + (["inductor"] if shutil.which("c++") or
                            shutil.which("g++") else [])


def compile_fullgraph_matches_eager(backend):
    torch._dynamo.reset()
    x = inputs(3)
    eager = model(**x)
    eager_grads = torch.autograd.grad(eager, list(x.values()))
    compiled = torch.compile(model, fullgraph=True, backend=backend)
    got = compiled(**x)
    got_grads = torch.autograd.grad(got, list(x.values()))
    torch.testing.assert_close(got, eager, rtol=1e-12, atol=1e-12)
    for g, want in zip(got_grads, eager_grads):
        torch.testing.assert_close(g, want, rtol=1e-10, atol=1e-12)
    # A bad shape is reported while tracing, by the fake function.
    bad = dict(x, b=x["b"][:, :, :3])
    with pytest.raises(Exception, match="b: expected shape"):
        torch.compile(model, fullgraph=True, backend=backend)(**bad)


# The custom-op checks exist only where torch has custom ops (the GPU
# machine's torch 2.11 runs them; see scripts/gpu-machine-python-check.sh).
if CUSTOM_OPS:
    test_opcheck = check_ops
    test_compile_fullgraph_matches_eager = pytest.mark.parametrize(
        "backend", BACKENDS)(compile_fullgraph_matches_eager)

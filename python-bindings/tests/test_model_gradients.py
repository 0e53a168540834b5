"""-recurrence-differentiate on the model ops: the pass decomposes them and
differentiates the scans and the linalg ops around them (feature maps,
gates, normalizations, broadcasts, sums), and each derived gradient
function agrees with central differences of the compiled model in
float64."""

import numpy as np
import pytest
import recurrence as rec

# (argument shapes, the op's line(s), result types): one function per model.
B, T = 2, 5
MODELS = {
    "linear_attention": (
        [(B, T, 3), (B, T, 3), (B, T, 4)],
        "%y = recurrence.linear_attention elu1 normalize q(%a0 : {0}) "
        "k(%a1 : {1}) v(%a2 : {2}) -> {2}", ["y"]),
    "linear_attention_states": (
        [(B, T, 3), (B, T, 3), (B, T, 4), (B, 3, 4), (B, 3)],
        "%y, %s, %c = recurrence.linear_attention elu1 normalize "
        "q(%a0 : {0}) k(%a1 : {1}) v(%a2 : {2}) init(%a3 : {3}) "
        "normalizer_init(%a4 : {4}) -> {2}, {3}, {4}", ["y", "s", "c"]),
    "linear_attention_unnormalized": (
        [(B, T, 3), (B, T, 3), (B, T, 4), (B, 3, 4)],
        "%y, %s = recurrence.linear_attention identity q(%a0 : {0}) "
        "k(%a1 : {1}) v(%a2 : {2}) init(%a3 : {3}) -> {2}, {3}",
        ["y", "s"]),
    "gated_delta_rule": (
        [(B, T, 3), (B, T, 3), (B, T, 4), (B, T), (B, T), (B, 3, 4)],
        "%y, %s = recurrence.delta_rule q(%a0 : {0}) k(%a1 : {1}) "
        "v(%a2 : {2}) beta(%a3 : {3}) gate(%a4 : {4}) init(%a5 : {5}) "
        "-> {2}, {5}", ["y", "s"]),
    "selective_ssm": (
        [(B, T, 4), (B, T, 4), (4, 3), (B, T, 3), (B, T, 3), (4,),
         (B, 3, 4)],
        "%y, %s = recurrence.selective_ssm x(%a0 : {0}) delta(%a1 : {1}) "
        "A(%a2 : {2}) B(%a3 : {3}) C(%a4 : {4}) D(%a5 : {5}) "
        "init(%a6 : {6}) -> {0}, {6}", ["y", "s"]),
    "hlru_of_normalized_gates": (
        [(B, T, 4, 3), (B, T, 4), (B, 2, 4)],
        "%g = recurrence.normalize_gates softplus %a0 : {0}\n"
        "  %y, %s = recurrence.hlru gates(%g : {0}) input(%a1 : {1}) "
        "init(%a2 : {2}) -> {1}, {2}", ["y", "s"]),
    "bdlru_of_normalized_gates": (
        [(B, T, 2, 2, 3), (B, T, 4), (B, 4)],
        "%g = recurrence.normalize_gates sigmoid %a0 : {0}\n"
        "  %y, %s = recurrence.bdlru gates(%g : {0}) input(%a1 : {1}) "
        "init(%a2 : {2}) -> {1}, {2}", ["y", "s"]),
}


def tensor_type(shape):
    return "tensor<" + "x".join(map(str, shape)) + "xf64>"


def source(model, models=MODELS):
    shapes, body, results = models[model]
    types = [tensor_type(s) for s in shapes]
    body = body.format(*types)
    # The results' types, read off the op's line.
    result_types = body.rsplit("->", 1)[1].strip().split(", ")
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    returns = ", ".join("%" + r for r in results)
    return (f"func.func @f({args}) -> ({', '.join(result_types)}) {{\n"
            f"  {body}\n  return {returns} : {', '.join(result_types)}\n}}\n")


def operands(model, rng, models=MODELS):
    shapes = models[model][0]
    values = [rng.uniform(-1, 1, s) for s in shapes]
    if model == "selective_ssm":
        values[1] = rng.uniform(0.1, 0.5, shapes[1])  # delta > 0
        values[2] = -rng.uniform(0.5, 1, shapes[2])  # A < 0
    if model == "gated_delta_rule":
        values[3] = rng.uniform(0.1, 0.9, shapes[3])  # beta
        values[4] = rng.uniform(0.5, 1, shapes[4])  # gate
    if model == "linear_attention_states":
        values[4] = rng.uniform(0.5, 1, shapes[4])  # a positive normalizer
    return values


def as_tuple(values):
    return values if isinstance(values, tuple) else (values,)


def check_gradient(forward, gradient, x, rng, tol=1e-6):
    """`gradient(*x, *weights)`, the gradient of sum(forward(*x) * weights)
    for random weights, against central differences along two random
    directions through each argument."""
    weights = [rng.uniform(-1, 1, y.shape) for y in as_tuple(forward(*x))]

    def loss(xs):
        return sum(float((y * w).sum())
                   for y, w in zip(as_tuple(forward(*xs)), weights))

    grads = as_tuple(gradient(*x, *weights))
    assert len(grads) == len(x)
    for i, (g, xi) in enumerate(zip(grads, x)):
        assert g.shape == xi.shape
        for _ in range(2):
            d = rng.uniform(-1, 1, xi.shape)
            eps = 1e-6
            plus = [y + eps * d if j == i else y for j, y in enumerate(x)]
            minus = [y - eps * d if j == i else y for j, y in enumerate(x)]
            want = (loss(plus) - loss(minus)) / (2 * eps)
            got = float((g * d).sum())
            assert abs(got - want) <= tol * (1 + abs(want)), (
                f"argument #{i}: {got} vs central differences {want}")


@pytest.mark.parametrize("model", sorted(MODELS))
def test_model_gradient_equals_central_differences(model):
    text = source(model)
    module = rec.Module.parse(text)
    module.run_pipeline("builtin.module(recurrence-differentiate)")
    rng = np.random.default_rng(sum(map(ord, model)))
    check_gradient(rec.compile(text, "f"), rec.compile(str(module), "f_grad"),
                   operands(model, rng), rng)


# Sizes at which the gradient's contractions between the scans (over a
# checkpointed chunk of 16 steps: [B, 16, 64, 64] and [B, 16, 128, 16]) are
# large enough to be shared among the cores (-recurrence-parallelize-linalg).
LARGE = {
    "gated_delta_rule": (
        [(B, 40, 64), (B, 40, 64), (B, 40, 64), (B, 40), (B, 40),
         (B, 64, 64)], MODELS["gated_delta_rule"][1], ["y", "s"]),
    "selective_ssm": (
        [(B, 40, 128), (B, 40, 128), (128, 16), (B, 40, 16), (B, 40, 16),
         (128,), (B, 16, 128)], MODELS["selective_ssm"][1], ["y", "s"]),
}


@pytest.mark.parametrize("model", sorted(LARGE))
def test_gradient_of_contractions_on_two_cores(model, monkeypatch):
    monkeypatch.setenv("RECURRENCE_CORES", "2")
    text = source(model, LARGE)
    module = rec.Module.parse(text)
    module.run_pipeline(
        "builtin.module(recurrence-differentiate{checkpoint=16})")
    rng = np.random.default_rng(sum(map(ord, model)) + 1)
    check_gradient(rec.compile(text, "f"), rec.compile(str(module), "f_grad"),
                   operands(model, rng, LARGE), rng)


# Second order: the gradient function of a scan is again scans and linalg
# ops, so a second run of the pass on it (functions=f_grad) gives its
# gradient, f_grad_grad, the double backward.
N = 4
SCANS = {  # the transition clause and its operands' shapes (state [N])
    "diagonal": ("diagonal transition(%a0 : {0})", [(B, T, N)]),
    "block_diagonal": ("block_diagonal<2> transition(%a0 : {0})",
                       [(B, T, N // 2, 2, 2)]),
    "dplr": ("dplr<1> transition(%a0, %a1, %a2 : {0}, {1}, {2})",
             [(B, T, N), (B, T, N, 1), (B, T, N, 1)]),
}


@pytest.mark.parametrize("structure", sorted(SCANS))
def test_second_order_gradient_equals_central_differences(structure):
    clause, shapes = SCANS[structure]
    shapes = shapes + [(B, T, N), (B, N)]  # the input, init
    types = [tensor_type(s) for s in shapes]
    k = len(shapes) - 2
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    text = (f"func.func @f({args}) -> {types[k]} {{\n"
            f"  %d = tensor.empty() : {types[k]}\n"
            f"  %h = recurrence.scan {clause.format(*types)} "
            f"input(%a{k} : {types[k]}) init(%a{k + 1} : {types[k + 1]}) "
            f"outs(%d : {types[k]}) -> {types[k]}\n"
            f"  return %h : {types[k]}\n}}\n")
    module = rec.Module.parse(text)
    module.run_pipeline("builtin.module(recurrence-differentiate,"
                        "recurrence-differentiate{functions=f_grad})")
    rng = np.random.default_rng(sum(map(ord, structure)))
    x = [rng.uniform(-1, 1, s) for s in shapes]
    # Contractive transitions.
    x[0] = (rng.uniform(-0.5, 0.5, shapes[0]) if structure == "block_diagonal"
            else rng.uniform(0.5, 0.9, shapes[0]))
    # f_grad(x, ybar) is the function here, f_grad_grad its gradient.
    ybar = rng.uniform(-1, 1, shapes[k])
    compiled = str(module)
    check_gradient(rec.compile(compiled, "f_grad"),
                   rec.compile(compiled, "f_grad_grad"), x + [ybar], rng)


def test_the_sweep_names_what_it_cannot_differentiate():
    text = """
func.func @f(%a: tensor<2x5x3xf64>, %b: tensor<2x5x3xf64>) -> tensor<2x5x3xf64> {
  %e = tensor.empty() : tensor<2x5x3xf64>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>,
      affine_map<(i, j, k) -> (i, j, k)>], iterator_types = ["parallel",
      "parallel", "parallel"]} ins(%a : tensor<2x5x3xf64>)
      outs(%e : tensor<2x5x3xf64>) {
    ^bb0(%x: f64, %o: f64):
      %r = math.sin %x : f64
      linalg.yield %r : f64
  } -> tensor<2x5x3xf64>
  %h_dest = tensor.empty() : tensor<2x5x3xf64>
  %h = recurrence.scan diagonal transition(%s : tensor<2x5x3xf64>) input(%b : tensor<2x5x3xf64>) outs(%h_dest : tensor<2x5x3xf64>) -> tensor<2x5x3xf64>
  return %h : tensor<2x5x3xf64>
}
"""
    module = rec.Module.parse(text)
    with pytest.raises(ValueError, match="cannot differentiate "
                                         "'linalg.generic'"):
        module.run_pipeline("builtin.module(recurrence-differentiate)")

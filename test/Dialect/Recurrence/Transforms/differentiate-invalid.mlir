// What -recurrence-differentiate refuses, with the exact messages.
//
// RUN: recurrence-opt %s -split-input-file -recurrence-differentiate -verify-diagnostics

func.func @exp(%a: tensor<2x6x3xf32>, %b: tensor<2x6x3xf32>) -> tensor<2x6x3xf32> {
  // expected-error @+1 {{recurrence-differentiate: cannot differentiate 'math.exp'; the sweep knows recurrence.scan, arith.addf, subf, mulf and negf on tensors, constants, tensor.empty and tensor.dim}}
  %e = math.exp %a : tensor<2x6x3xf32>
  %h_dest = tensor.empty() : tensor<2x6x3xf32>
  %h = recurrence.scan diagonal transition(%e : tensor<2x6x3xf32>) input(%b : tensor<2x6x3xf32>) outs(%h_dest : tensor<2x6x3xf32>) -> tensor<2x6x3xf32>
  return %h : tensor<2x6x3xf32>
}

// -----

func.func @taken(%a: tensor<2x6x3xf32>, %b: tensor<2x6x3xf32>) -> tensor<2x6x3xf32> {
  %h_dest = tensor.empty() : tensor<2x6x3xf32>
  %h = recurrence.scan diagonal transition(%a : tensor<2x6x3xf32>) input(%b : tensor<2x6x3xf32>) outs(%h_dest : tensor<2x6x3xf32>) -> tensor<2x6x3xf32>
  return %h : tensor<2x6x3xf32>
}

// expected-error @+1 {{recurrence-differentiate: @taken_grad already exists; only a declaration of type '(tensor<2x6x3xf32>, tensor<2x6x3xf32>, tensor<2x6x3xf32>) -> (tensor<2x6x3xf32>, tensor<2x6x3xf32>)' may precede its definition}}
func.func private @taken_grad(tensor<2x6x3xf32>) -> tensor<2x6x3xf32>

// -----

// expected-error @+1 {{recurrence-differentiate: argument #2 of @scale is not a ranked tensor}}
func.func @scale(%a: tensor<2x6x3xf32>, %b: tensor<2x6x3xf32>, %s: f32) -> tensor<2x6x3xf32> {
  %h_dest = tensor.empty() : tensor<2x6x3xf32>
  %h = recurrence.scan diagonal transition(%a : tensor<2x6x3xf32>) input(%b : tensor<2x6x3xf32>) outs(%h_dest : tensor<2x6x3xf32>) -> tensor<2x6x3xf32>
  return %h : tensor<2x6x3xf32>
}

// -----

func.func @packed(%a: tensor<1x6x5xf32>, %b: tensor<1x6x5xf32>, %o: tensor<3xi64>) -> tensor<1x6x5xf32> {
  %h_dest = tensor.empty() : tensor<1x6x5xf32>
  // expected-error @+1 {{'recurrence.scan' op has no adjoint yet with `offsets`}}
  %h = recurrence.scan diagonal transition(%a : tensor<1x6x5xf32>) input(%b : tensor<1x6x5xf32>) offsets(%o : tensor<3xi64>) outs(%h_dest : tensor<1x6x5xf32>) -> tensor<1x6x5xf32>
  return %h : tensor<1x6x5xf32>
}

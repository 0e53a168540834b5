// What -recurrence-differentiate refuses, with the exact messages.
//
// RUN: recurrence-opt %s -split-input-file -recurrence-differentiate -verify-diagnostics

func.func @exp(%a: tensor<2x6x3xf32>, %b: tensor<2x6x3xf32>) -> tensor<2x6x3xf32> {
  // expected-error @+1 {{recurrence-differentiate: cannot differentiate 'math.exp'; the sweep knows recurrence.scan, arith.addf, subf, mulf and negf on tensors, constants, tensor.empty, tensor.dim and pure integer ops}}
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


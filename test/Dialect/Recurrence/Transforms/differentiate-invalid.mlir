// What -recurrence-differentiate refuses, with the exact messages.
//
// RUN: recurrence-opt %s -split-input-file -recurrence-differentiate -verify-diagnostics

func.func @exp(%a: tensor<2x6x3xf32>, %b: tensor<2x6x3xf32>) -> tensor<2x6x3xf32> {
  // expected-error @+1 {{recurrence-differentiate: cannot differentiate 'math.exp'; the sweep knows recurrence.scan, arith.addf, subf, mulf and negf on tensors, linalg ops of projected-permutation maps whose bodies are elementwise arithmetic, exp, log1p, abs, max, min and select or a sum of them, tensor slices, casts and reshapes, constants, tensor.empty, linalg.fill, tensor.dim, pure integer ops and generics of integers}}
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

// A body op without a known derivative.
func.func @sine(%a: tensor<2x6x3xf32>, %b: tensor<2x6x3xf32>) -> tensor<2x6x3xf32> {
  %e = tensor.empty() : tensor<2x6x3xf32>
  // expected-error @+1 {{recurrence-differentiate: cannot differentiate 'linalg.generic'}}
  %s = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j, k)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a : tensor<2x6x3xf32>) outs(%e : tensor<2x6x3xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.sin %x : f32
    linalg.yield %r : f32
  } -> tensor<2x6x3xf32>
  %h_dest = tensor.empty() : tensor<2x6x3xf32>
  %h = recurrence.scan diagonal transition(%s : tensor<2x6x3xf32>) input(%b : tensor<2x6x3xf32>) outs(%h_dest : tensor<2x6x3xf32>) -> tensor<2x6x3xf32>
  return %h : tensor<2x6x3xf32>
}

// -----

// A reduction that is not a sum (a max over the last axis).
func.func @maximum(%a: tensor<2x6x3xf32>, %b: tensor<2x6xf32>) -> tensor<2x6xf32> {
  %z = arith.constant dense<0.0> : tensor<2x6xf32>
  // expected-error @+1 {{recurrence-differentiate: cannot differentiate 'linalg.generic'}}
  %m = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a : tensor<2x6x3xf32>) outs(%z : tensor<2x6xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %o, %x : f32
    linalg.yield %r : f32
  } -> tensor<2x6xf32>
  %h_dest = tensor.empty() : tensor<2x6xf32>
  %h = recurrence.scan diagonal transition(%m : tensor<2x6xf32>) input(%b : tensor<2x6xf32>) outs(%h_dest : tensor<2x6xf32>) -> tensor<2x6xf32>
  return %h : tensor<2x6xf32>
}

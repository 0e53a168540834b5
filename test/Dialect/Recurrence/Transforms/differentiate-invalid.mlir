// What -recurrence-differentiate refuses, with the exact messages.
//
// RUN: recurrence-opt %s -split-input-file -recurrence-differentiate -verify-diagnostics

func.func @not_a_scan(%a: tensor<2x6x3xf32>, %b: tensor<2x6x3xf32>) -> (tensor<2x6x3xf32>, tensor<2x6x3xf32>) {
  %h = recurrence.scan diagonal transition(%a : tensor<2x6x3xf32>) input(%b : tensor<2x6x3xf32>) -> tensor<2x6x3xf32>
  // expected-error @+1 {{recurrence-differentiate: result #1 of @not_a_scan does not come from a recurrence.scan}}
  return %h, %a : tensor<2x6x3xf32>, tensor<2x6x3xf32>
}

// -----

func.func @computed_operand(%a: tensor<2x6x3xf32>, %b: tensor<2x6x3xf32>) -> tensor<2x6x3xf32> {
  %e = tensor.empty() : tensor<2x6x3xf32>
  %a2 = linalg.mul ins(%a, %a : tensor<2x6x3xf32>, tensor<2x6x3xf32>) outs(%e : tensor<2x6x3xf32>) -> tensor<2x6x3xf32>
  // expected-error @+1 {{recurrence-differentiate: operand #0 is not an argument of the function; only scans of arguments are differentiated}}
  %h = recurrence.scan diagonal transition(%a2 : tensor<2x6x3xf32>) input(%b : tensor<2x6x3xf32>) -> tensor<2x6x3xf32>
  return %h : tensor<2x6x3xf32>
}

// -----

func.func @taken(%a: tensor<2x6x3xf32>, %b: tensor<2x6x3xf32>) -> tensor<2x6x3xf32> {
  %h = recurrence.scan diagonal transition(%a : tensor<2x6x3xf32>) input(%b : tensor<2x6x3xf32>) -> tensor<2x6x3xf32>
  return %h : tensor<2x6x3xf32>
}

// expected-error @+1 {{recurrence-differentiate: @taken_grad already exists; only a declaration of type '(tensor<2x6x3xf32>, tensor<2x6x3xf32>, tensor<2x6x3xf32>) -> (tensor<2x6x3xf32>, tensor<2x6x3xf32>)' may precede its definition}}
func.func private @taken_grad(tensor<2x6x3xf32>) -> tensor<2x6x3xf32>

// -----

// expected-error @+1 {{recurrence-differentiate: argument #2 of @scale is not a ranked tensor}}
func.func @scale(%a: tensor<2x6x3xf32>, %b: tensor<2x6x3xf32>, %s: f32) -> tensor<2x6x3xf32> {
  %h = recurrence.scan diagonal transition(%a : tensor<2x6x3xf32>) input(%b : tensor<2x6x3xf32>) -> tensor<2x6x3xf32>
  return %h : tensor<2x6x3xf32>
}

// -recurrence-differentiate on a model op: the op is decomposed, and the
// linalg ops around its scans get their adjoints as generics. A broadcast
// operand's cotangent sums over the dims its map leaves out.
//
// RUN: recurrence-opt %s -recurrence-differentiate | FileCheck %s

// Mamba's gates exp(delta[b, t, d] A[d, n]) read A [Dm, N] broadcast over
// (b, t): A's cotangent reduces over them, with the derivative of exp.
// CHECK-LABEL: func.func @ssm_grad
//  CHECK-SAME:   -> (tensor<2x5x4xf32>, tensor<2x5x4xf32>, tensor<4x3xf32>, tensor<2x5x3xf32>, tensor<2x5x3xf32>)
//       CHECK:   recurrence.scan diagonal matrix reverse
//       CHECK:   linalg.generic {{.*}} iterator_types = ["reduction", "reduction", "parallel", "parallel"]} ins({{.*}}) outs({{.*}} : tensor<4x3xf32>)
//       CHECK:     math.exp
//       CHECK:     arith.mulf
//       CHECK:     arith.addf
//       CHECK:   return
func.func @ssm(%x: tensor<2x5x4xf32>, %dt: tensor<2x5x4xf32>, %A: tensor<4x3xf32>, %B: tensor<2x5x3xf32>, %C: tensor<2x5x3xf32>) -> tensor<2x5x4xf32> {
  %y = recurrence.selective_ssm x(%x : tensor<2x5x4xf32>) delta(%dt : tensor<2x5x4xf32>) A(%A : tensor<4x3xf32>) B(%B : tensor<2x5x3xf32>) C(%C : tensor<2x5x3xf32>) -> tensor<2x5x4xf32>
  return %y : tensor<2x5x4xf32>
}

// The sum of normalize_gates gets no adjoint of its own: its init (zeros)
// is a fill; the slices of hlru's gates go back through insert_slice.
// CHECK-LABEL: func.func @hlru_grad
//       CHECK:   tensor.insert_slice {{.*}} into {{.*}} : tensor<2x5x4x1xf32> into tensor<2x5x4x3xf32>
//       CHECK:   tensor.insert_slice {{.*}} into {{.*}} : tensor<2x5x4x2xf32> into tensor<2x5x4x3xf32>
//       CHECK:   return
func.func @hlru(%raw: tensor<2x5x4x3xf32>, %v: tensor<2x5x4xf32>) -> tensor<2x5x4xf32> {
  %g = recurrence.normalize_gates exp %raw : tensor<2x5x4x3xf32>
  %h = recurrence.hlru gates(%g : tensor<2x5x4x3xf32>) input(%v : tensor<2x5x4xf32>) -> tensor<2x5x4xf32>
  return %h : tensor<2x5x4xf32>
}

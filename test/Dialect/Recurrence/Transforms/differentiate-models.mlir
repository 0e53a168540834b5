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
// The body recomputes g = exp(dt A) and adds ybar * dt * g to the sum.
//       CHECK:   linalg.generic {{.*}} iterator_types = ["reduction", "reduction", "parallel", "parallel"]} ins(%[[DT:[^,]*]], %[[A:[^,]*]], %{{.*}}) outs({{.*}} : tensor<4x3xf32>)
//  CHECK-NEXT:   ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[BAR:.*]]: f32, %[[ACC:.*]]: f32):
//  CHECK-NEXT:     arith.constant
//  CHECK-NEXT:     %[[P:.*]] = arith.mulf %[[X]], %[[Y]]
//  CHECK-NEXT:     %[[G:.*]] = math.exp %[[P]]
//  CHECK-NEXT:     %[[T:.*]] = arith.mulf %[[BAR]], %[[X]]
//  CHECK-NEXT:     %[[TG:.*]] = arith.mulf %[[T]], %[[G]]
//  CHECK-NEXT:     %[[S:.*]] = arith.addf %[[ACC]], %[[TG]]
//  CHECK-NEXT:     linalg.yield %[[S]]
//       CHECK:   return
func.func @ssm(%x: tensor<2x5x4xf32>, %dt: tensor<2x5x4xf32>, %A: tensor<4x3xf32>, %B: tensor<2x5x3xf32>, %C: tensor<2x5x3xf32>) -> tensor<2x5x4xf32> {
  %y = recurrence.selective_ssm x(%x : tensor<2x5x4xf32>) delta(%dt : tensor<2x5x4xf32>) A(%A : tensor<4x3xf32>) B(%B : tensor<2x5x3xf32>) C(%C : tensor<2x5x3xf32>) -> tensor<2x5x4xf32>
  return %y : tensor<2x5x4xf32>
}

// The slices of hlru's gates go back through insert_slice (the fill that
// starts normalize_gates' sum is a constant and gets no cotangent).
// CHECK-LABEL: func.func @hlru_grad
//       CHECK:   tensor.insert_slice {{.*}} into {{.*}} : tensor<2x5x4x1xf32> into tensor<2x5x4x3xf32>
//       CHECK:   tensor.insert_slice {{.*}} into {{.*}} : tensor<2x5x4x2xf32> into tensor<2x5x4x3xf32>
//       CHECK:   return
func.func @hlru(%raw: tensor<2x5x4x3xf32>, %v: tensor<2x5x4xf32>) -> tensor<2x5x4xf32> {
  %g = recurrence.normalize_gates exp %raw : tensor<2x5x4x3xf32>
  %h = recurrence.hlru gates(%g : tensor<2x5x4x3xf32>) input(%v : tensor<2x5x4xf32>) -> tensor<2x5x4xf32>
  return %h : tensor<2x5x4xf32>
}

// A delta rule without a gate decomposes into a dplr<1> scan whose diagonal
// operand is a constant (ones). With checkpoints, its gradient is built
// chunk by chunk in the backward loop; nothing reads it, so the loop does
// not carry it: the state's cotangent and the five gradients that reach
// the arguments (U's and V's, the factored input's key and value, the
// readout's), with no [2, 12, 4] ones' gradient among them.
// RUN: recurrence-opt %s -recurrence-differentiate=checkpoint=4 \
// RUN:   | FileCheck %s --check-prefix=UNREAD
// UNREAD-LABEL: func.func @delta_grad(
// UNREAD:   scf.for
// UNREAD:   %[[GRADS:.*]]:6 = scf.for {{.*}} -> (tensor<2x4x3xf32>, tensor<2x12x4x1xf32>, tensor<2x12x4x1xf32>, tensor<2x12x4xf32>, tensor<2x12x3xf32>, tensor<2x12x4xf32>)
// UNREAD:   return %[[GRADS]]#5, %{{.*}}, %[[GRADS]]#4, %{{.*}} :
func.func @delta(%q: tensor<2x12x4xf32>, %k: tensor<2x12x4xf32>, %v: tensor<2x12x3xf32>, %beta: tensor<2x12xf32>) -> tensor<2x12x3xf32> {
  %y = recurrence.delta_rule q(%q : tensor<2x12x4xf32>) k(%k : tensor<2x12x4xf32>) v(%v : tensor<2x12x3xf32>) beta(%beta : tensor<2x12xf32>) -> tensor<2x12x3xf32>
  return %y : tensor<2x12x3xf32>
}

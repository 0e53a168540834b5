// RUN: recurrence-opt %s -recurrence-decompose-models -convert-elementwise-to-linalg -recurrence-select-schedule -recurrence-lower-sequential=cores=1 -recurrence-fuse-step-producers -canonicalize -cse | FileCheck %s

// Mamba's gates exp(delta A), [B, T, N, Dm], are computed inside the time
// loop, a step's [N, Dm] at a time, from that step's delta and A: no tensor
// of the gates' shape is created, and nothing is computed before the loops.
// CHECK-LABEL: func.func @selective_ssm(
// CHECK-NOT:     tensor.empty({{[^)]*}}) : tensor<?x?x?x?xf32>
// CHECK-NOT:     math.exp
// CHECK:         scf.forall
// CHECK:           scf.for
// CHECK:             %[[DELTA:.*]] = tensor.extract_slice %arg1
// CHECK:             linalg.generic {{.*}} ins(%[[DELTA]], %{{.*}} : tensor<1x1x?xf32>, tensor<?x?xf32>) outs(%{{.*}} : tensor<1x1x?x?xf32>)
// CHECK:               arith.mulf
// CHECK:               math.exp
// CHECK:             linalg.generic
func.func @selective_ssm(%x: tensor<?x?x?xf32>, %dt: tensor<?x?x?xf32>, %A: tensor<?x?xf32>, %B: tensor<?x?x?xf32>, %C: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %y = recurrence.selective_ssm x(%x : tensor<?x?x?xf32>) delta(%dt : tensor<?x?x?xf32>) A(%A : tensor<?x?xf32>) B(%B : tensor<?x?x?xf32>) C(%C : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %y : tensor<?x?x?xf32>
}

// H-LRU's gates: the per-step transpose of the state gates and the input
// gate's product with v are computed inside the time loop. (The normalized
// gates themselves are still computed whole before it: their stack is split
// by slices and a reshape outside the loop.)
// CHECK-LABEL: func.func @normalized_gates(
// CHECK:         scf.for
// CHECK:           linalg.transpose
// CHECK:           linalg.mul
func.func @normalized_gates(%raw: tensor<?x?x?x3xf32>, %v: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %g = recurrence.normalize_gates softplus %raw : tensor<?x?x?x3xf32>
  %h = recurrence.hlru gates(%g : tensor<?x?x?x3xf32>) input(%v : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %h : tensor<?x?x?xf32>
}

// Gates that are also returned are computed once, whole, before the loop.
// CHECK-LABEL: func.func @gates_also_returned(
// CHECK:         %[[GATES:.*]] = linalg.generic
// CHECK:           math.exp
// CHECK:         scf.for
// CHECK:           tensor.extract_slice %[[GATES]]
// CHECK-NOT:       math.exp
// CHECK:         return
func.func @gates_also_returned(%raw: tensor<4x16x8xf32>, %b: tensor<4x16x8xf32>) -> (tensor<4x16x8xf32>, tensor<4x16x8xf32>) {
  %a = math.exp %raw : tensor<4x16x8xf32>
  %h_dest = tensor.empty() : tensor<4x16x8xf32>
  %h = recurrence.scan diagonal schedule sequential transition(%a : tensor<4x16x8xf32>) input(%b : tensor<4x16x8xf32>) outs(%h_dest : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  return %h, %a : tensor<4x16x8xf32>, tensor<4x16x8xf32>
}

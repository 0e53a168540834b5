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

// A producer tiled into the parallel loop (a sequence's widened transitions)
// whose first step is read before the time loop: both the first step and the
// steps in the loop read their own slice, and no tile of the whole sequence
// is materialized (on the GPU, a per-thread buffer of [T] elements).
// CHECK-LABEL: func.func @first_step_of_a_local_tile(
// CHECK-NOT:     tensor<100x8xf32>
// CHECK:         scf.forall
// CHECK-NOT:     tensor<100x8xf32>
// CHECK:           %[[FIRST:.*]] = tensor.extract_slice {{.*}} to tensor<1x8xbf16>
// CHECK-NOT:     tensor<100x8xf32>
// CHECK:           linalg.copy ins(%[[FIRST]] : tensor<1x8xbf16>)
// CHECK-NOT:     tensor<100x8xf32>
// CHECK:           scf.for
// CHECK-NOT:     tensor<100x8xf32>
// CHECK:             %[[STEP:.*]] = tensor.extract_slice {{.*}} to tensor<1x8xbf16>
// CHECK-NOT:     tensor<100x8xf32>
// CHECK:             linalg.copy ins(%[[STEP]] : tensor<1x8xbf16>)
// CHECK-NOT:     tensor<100x8xf32>
// CHECK:         return
func.func @first_step_of_a_local_tile(%a: tensor<2x100x8xbf16>, %init: tensor<2x1x8xf32>) -> tensor<2x1x8xf32> {
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %r = scf.forall (%i) in (2) shared_outs(%o = %init) -> (tensor<2x1x8xf32>) {
    %x = tensor.extract_slice %a[%i, 0, 0] [1, 100, 8] [1, 1, 1] : tensor<2x100x8xbf16> to tensor<100x8xbf16>
    %e = tensor.empty() : tensor<100x8xf32>
    %w = linalg.copy ins(%x : tensor<100x8xbf16>) outs(%e : tensor<100x8xf32>) -> tensor<100x8xf32>
    %first = tensor.extract_slice %w[0, 0] [1, 8] [1, 1] : tensor<100x8xf32> to tensor<1x8xf32>
    %sum = scf.for %t = %c1 to %c100 step %c1 iter_args(%acc = %first) -> (tensor<1x8xf32>) {
      %s = tensor.extract_slice %w[%t, 0] [1, 8] [1, 1] : tensor<100x8xf32> to tensor<1x8xf32>
      %n = linalg.add ins(%acc, %s : tensor<1x8xf32>, tensor<1x8xf32>) outs(%acc : tensor<1x8xf32>) -> tensor<1x8xf32>
      scf.yield %n : tensor<1x8xf32>
    }
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %sum into %o[%i, 0, 0] [1, 1, 8] [1, 1, 1] : tensor<1x8xf32> into tensor<2x1x8xf32>
    }
  }
  return %r : tensor<2x1x8xf32>
}

// The same with a dynamic number of steps: a step is a static tile of it.
// CHECK-LABEL: func.func @first_step_of_a_dynamic_tile(
// CHECK-NOT:     tensor<?x8xf32>
// CHECK:         linalg.copy ins(%{{.*}} : tensor<1x8xbf16>)
// CHECK-NOT:     tensor<?x8xf32>
// CHECK:         scf.for
// CHECK-NOT:     tensor<?x8xf32>
// CHECK:           linalg.copy ins(%{{.*}} : tensor<1x8xbf16>)
// CHECK-NOT:     tensor<?x8xf32>
// CHECK:         return
func.func @first_step_of_a_dynamic_tile(%a: tensor<2x?x8xbf16>, %init: tensor<2x1x8xf32>) -> tensor<2x1x8xf32> {
  %c1 = arith.constant 1 : index
  %steps = tensor.dim %a, %c1 : tensor<2x?x8xbf16>
  %r = scf.forall (%i) in (2) shared_outs(%o = %init) -> (tensor<2x1x8xf32>) {
    %x = tensor.extract_slice %a[%i, 0, 0] [1, %steps, 8] [1, 1, 1] : tensor<2x?x8xbf16> to tensor<?x8xbf16>
    %e = tensor.empty(%steps) : tensor<?x8xf32>
    %w = linalg.copy ins(%x : tensor<?x8xbf16>) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
    %first = tensor.extract_slice %w[0, 0] [1, 8] [1, 1] : tensor<?x8xf32> to tensor<1x8xf32>
    %sum = scf.for %t = %c1 to %steps step %c1 iter_args(%acc = %first) -> (tensor<1x8xf32>) {
      %s = tensor.extract_slice %w[%t, 0] [1, 8] [1, 1] : tensor<?x8xf32> to tensor<1x8xf32>
      %n = linalg.add ins(%acc, %s : tensor<1x8xf32>, tensor<1x8xf32>) outs(%acc : tensor<1x8xf32>) -> tensor<1x8xf32>
      scf.yield %n : tensor<1x8xf32>
    }
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %sum into %o[%i, 0, 0] [1, 1, 8] [1, 1, 1] : tensor<1x8xf32> into tensor<2x1x8xf32>
    }
  }
  return %r : tensor<2x1x8xf32>
}

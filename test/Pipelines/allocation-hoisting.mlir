// A dplr step projects its state onto V first, w = V^T h, into a temporary
// of dynamic size [r, D] (here r is dynamic in the types). Both pipelines
// allocate that temporary once per sequence, before the time loop (the dims it is sized by hoisted
// first, then upstream's buffer-loop-hoisting), rather than at every step:
// on the CPU a heap allocation per step, on the GPU a device-heap malloc
// per thread and step. The allocations stay inside the loop over the batch,
// which runs in parallel; the carried state, which iterations yield, is not
// shared either.
//
// RUN: recurrence-opt %s -recurrence-to-llvm -mlir-disable-threading -mlir-print-ir-after=buffer-loop-hoisting 2>&1 >/dev/null | FileCheck %s
// RUN: recurrence-opt %s -recurrence-to-nvvm -mlir-disable-threading -mlir-print-ir-after=buffer-loop-hoisting 2>&1 >/dev/null | FileCheck %s

// CHECK-LABEL: func.func @dplr(
// CHECK:         memref.alloc({{.*}}) {{.*}} : memref<?x?x?xf32>
// CHECK:         scf.forall
// CHECK:           %[[STATE:.*]] = memref.alloc({{.*}}) {{.*}} : memref<?x1xf32>
// CHECK:           %[[TEMP:.*]] = memref.alloc({{.*}}) {{.*}} : memref<?x1xf32>
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %[[STATE]],
// CHECK-NOT:         memref.alloc
// CHECK:             outs(%[[TEMP]] : memref<?x1xf32>)
// CHECK-NOT:         memref.alloc
// CHECK:             scf.yield
func.func @dplr(%d: tensor<?x?x?xf32>, %u: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %b, %c0 : tensor<?x?x?xf32>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %b, %c1 : tensor<?x?x?xf32>
  %c2 = arith.constant 2 : index
  %d2 = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %h_dest = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %h = recurrence.scan dplr<2> schedule sequential transition(%d, %u, %v : tensor<?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) input(%b : tensor<?x?x?xf32>) outs(%h_dest : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %h : tensor<?x?x?xf32>
}

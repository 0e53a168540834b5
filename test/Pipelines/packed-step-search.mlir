// A packed scan's gates read the sequence starting at each step from a [T]
// generic (a binary search of the offsets), which the step lowering fuses
// into its steps: the search runs once per step, outside the gate of the
// step's channels, which stays a plain select.
//
// RUN: recurrence-opt %s -recurrence-to-llvm -mlir-disable-threading -mlir-print-ir-after=recurrence-fuse-step-producers 2>&1 >/dev/null | FileCheck %s

// CHECK-LABEL: func.func @packed
// CHECK: scf.for %[[T:.*]] = {{.*}} iter_args
// CHECK: %[[STARTING:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1xi64>)
// CHECK: affine.apply #{{.*}}(%[[T]])
// CHECK: scf.while
// CHECK: linalg.yield
// CHECK-NEXT: } -> tensor<1xi64>
// CHECK: linalg.generic {{.*}} ins(%[[STARTING]], %{{.*}} : tensor<1xi64>, tensor<1x1x64xf32>)
// CHECK-NOT: scf.while
// CHECK: arith.cmpi sge
// CHECK-NEXT: arith.select
// CHECK-NEXT: linalg.yield
// CHECK: } {recurrence.steps}
func.func @packed(%a: tensor<1x?x64xf32>, %b: tensor<1x?x64xf32>, %o: tensor<?xi64>) -> tensor<1x?x64xf32> {
  %c1 = arith.constant 1 : index
  %t = tensor.dim %b, %c1 : tensor<1x?x64xf32>
  %e = tensor.empty(%t) : tensor<1x?x64xf32>
  %h = recurrence.scan diagonal schedule sequential transition(%a : tensor<1x?x64xf32>) input(%b : tensor<1x?x64xf32>) offsets(%o : tensor<?xi64>) outs(%e : tensor<1x?x64xf32>) -> tensor<1x?x64xf32>
  return %h : tensor<1x?x64xf32>
}

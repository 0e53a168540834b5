// A schedule chosen at run time (dynamic lanes: chunked below the threshold,
// sequential above) writes the caller's buffer in either branch: the JIT's
// destination-passing wrapper gets no temporary output and no copy kernel,
// only the chunked schedule's three kernels (for short and for long
// sequences) and the sequential one.
//
// RUN: recurrence-opt %s -recurrence-to-nvvm -mlir-disable-threading -mlir-print-ir-after=recurrence-gpu-loads-in-flight 2>&1 >/dev/null | FileCheck %s

// CHECK-LABEL: func.func @wrapper(
// CHECK-SAME: %[[OUT:[a-z0-9]+]]: memref<?x?x?xf32>)
// CHECK-NOT: gpu.alloc async [%{{.*}}] (%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) : memref<?x?x?xf32>
// CHECK: scf.if
// CHECK: scf.if
// CHECK-COUNT-3: gpu.launch
// CHECK: } else {
// CHECK-COUNT-3: gpu.launch
// CHECK: }
// CHECK: } else {
// CHECK: gpu.launch
// CHECK: memref.subview %[[OUT]]
// CHECK-NOT: gpu.launch
// CHECK: return
func.func private @diagonal(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %b, %c0 : tensor<?x?x?xf32>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %b, %c1 : tensor<?x?x?xf32>
  %c2 = arith.constant 2 : index
  %d2 = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %h_dest = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %h = recurrence.scan diagonal transition(%a : tensor<?x?x?xf32>) input(%b : tensor<?x?x?xf32>) outs(%h_dest : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %h : tensor<?x?x?xf32>
}
func.func @wrapper(%a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>, %o: memref<?x?x?xf32>) {
  %ta = bufferization.to_tensor %a restrict : memref<?x?x?xf32> to tensor<?x?x?xf32>
  %tb = bufferization.to_tensor %b restrict : memref<?x?x?xf32> to tensor<?x?x?xf32>
  %r = func.call @diagonal(%ta, %tb) : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  bufferization.materialize_in_destination %r in restrict writable %o : (tensor<?x?x?xf32>, memref<?x?x?xf32>) -> ()
  return
}

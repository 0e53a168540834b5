// -recurrence-to-nvvm lowers a scan over packed sequences, sequentially
// (auto keeps it so; see to-nvvm-packed-invalid.mlir): the offsets are
// a device buffer the kernels read (each step finds its sequence by a
// binary search), and no kernel touches host memory.
//
// RUN: recurrence-opt %s -recurrence-to-nvvm -mlir-disable-threading -mlir-print-ir-after=gpu-kernel-outlining 2>&1 >/dev/null | FileCheck %s

// CHECK: gpu.launch_func {{.*}} args({{.*}}%arg3 : memref<?xi64>
// CHECK: gpu.func @packed_kernel({{.*}}memref<?xi64>
// CHECK:   scf.while
func.func @packed(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>, %h0: tensor<?x?x?xf32>, %o: tensor<?xi64>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d0 = tensor.dim %b, %c0 : tensor<?x?x?xf32>
  %d1 = tensor.dim %b, %c1 : tensor<?x?x?xf32>
  %d2 = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %s = tensor.dim %h0, %c1 : tensor<?x?x?xf32>
  %h_dest = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %l_dest = tensor.empty(%d0, %s, %d2) : tensor<?x?x?xf32>
  %h, %l = recurrence.scan diagonal transition(%a : tensor<?x?x?xf32>)
      input(%b : tensor<?x?x?xf32>) init(%h0 : tensor<?x?x?xf32>)
      offsets(%o : tensor<?xi64>) outs(%h_dest, %l_dest : tensor<?x?x?xf32>, tensor<?x?x?xf32>)
      -> tensor<?x?x?xf32>, tensor<?x?x?xf32>
  return %h, %l : tensor<?x?x?xf32>, tensor<?x?x?xf32>
}

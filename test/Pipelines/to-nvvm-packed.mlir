// -recurrence-to-nvvm lowers a scan over packed sequences, sequentially
// (auto keeps it so; see to-nvvm-packed-invalid.mlir): the offsets are
// a device buffer the kernels read (each step finds its sequence by a
// binary search), and no kernel touches host memory. So do its gradient
// and, at static sizes, its second-order gradient, whose step masks are
// i8 device buffers (i1 ones are the host's bookkeeping): their host code
// only launches kernels (GRAD). The gradient that reads the states from the
// forward's output (results=true) lowers the same way (RESULTS).
//
// RUN: recurrence-opt %s -recurrence-to-nvvm -mlir-disable-threading -mlir-print-ir-after=gpu-kernel-outlining 2>&1 >/dev/null | FileCheck %s
// RUN: recurrence-opt %s -recurrence-differentiate="functions=packed,fixed target=cuda" -recurrence-differentiate="functions=fixed_grad target=cuda" -recurrence-to-nvvm | FileCheck %s --check-prefix=GRAD
// RUN: recurrence-opt %s -recurrence-differentiate="functions=packed results=true target=cuda" -recurrence-to-nvvm | FileCheck %s --check-prefix=RESULTS

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

// GRAD-LABEL: llvm.func @packed_grad(
// GRAD-NOT:     llvm.call @malloc
// GRAD:         gpu.launch_func
// GRAD-NOT:     llvm.call @malloc
// GRAD:         llvm.return
// RESULTS-LABEL: llvm.func @packed_grad(
// RESULTS-NOT:     llvm.call @malloc
// RESULTS:         gpu.launch_func
// RESULTS-NOT:     llvm.call @malloc
// RESULTS:         llvm.return
// GRAD-LABEL: llvm.func @fixed_grad_grad(
// GRAD-NOT:     llvm.call @malloc
// GRAD:         gpu.launch_func
// GRAD-NOT:     llvm.call @malloc
// GRAD:         llvm.return
func.func @fixed(%a: tensor<2x6x5xf32>, %b: tensor<2x6x5xf32>, %h0: tensor<2x3x5xf32>, %o: tensor<4xi64>) -> (tensor<2x6x5xf32>, tensor<2x3x5xf32>) {
  %h_dest = tensor.empty() : tensor<2x6x5xf32>
  %l_dest = tensor.empty() : tensor<2x3x5xf32>
  %h, %l = recurrence.scan diagonal reverse transition(%a : tensor<2x6x5xf32>)
      input(%b : tensor<2x6x5xf32>) init(%h0 : tensor<2x3x5xf32>)
      offsets(%o : tensor<4xi64>) outs(%h_dest, %l_dest : tensor<2x6x5xf32>, tensor<2x3x5xf32>)
      -> tensor<2x6x5xf32>, tensor<2x3x5xf32>
  return %h, %l : tensor<2x6x5xf32>, tensor<2x3x5xf32>
}

// The second-order gradient (the gradient of the gradient, what torch's
// double backward of a scan on CUDA tensors compiles: two
// -recurrence-differentiate runs, the second picking its checkpoints for
// cuda) lowers for the GPU: every function of the chain becomes host code
// that only allocates device memory and launches kernels, touching no
// element itself, for diagonal, block_diagonal and dplr scans.
//
// RUN: recurrence-opt %s -recurrence-differentiate="functions=diagonal,block_diagonal,dplr" -recurrence-differentiate="functions=diagonal_grad,block_diagonal_grad,dplr_grad target=cuda" -recurrence-to-nvvm | FileCheck %s

// CHECK-LABEL: llvm.func @diagonal_grad_grad(
// CHECK-NOT: llvm.call @malloc
// CHECK-NOT: llvm.load
// CHECK-NOT: llvm.store
// CHECK: gpu.launch_func
// CHECK-NOT: llvm.load
// CHECK-NOT: llvm.store
// CHECK: llvm.return
// CHECK: gpu.binary @diagonal_grad_grad_kernel
func.func @diagonal(%a: tensor<2x9x6xf64>, %b: tensor<2x9x6xf64>, %h0: tensor<2x6xf64>) -> (tensor<2x9x6xf64>, tensor<2x6xf64>) {
  %e = tensor.empty() : tensor<2x9x6xf64>
  %l = tensor.empty() : tensor<2x6xf64>
  %h, %last = recurrence.scan diagonal transition(%a : tensor<2x9x6xf64>) input(%b : tensor<2x9x6xf64>) init(%h0 : tensor<2x6xf64>) outs(%e, %l : tensor<2x9x6xf64>, tensor<2x6xf64>) -> tensor<2x9x6xf64>, tensor<2x6xf64>
  return %h, %last : tensor<2x9x6xf64>, tensor<2x6xf64>
}

// CHECK-LABEL: llvm.func @block_diagonal_grad_grad(
// CHECK-NOT: llvm.call @malloc
// CHECK-NOT: llvm.load
// CHECK-NOT: llvm.store
// CHECK: gpu.launch_func
// CHECK-NOT: llvm.load
// CHECK-NOT: llvm.store
// CHECK: llvm.return
// CHECK: gpu.binary @block_diagonal_grad_grad_kernel
func.func @block_diagonal(%a: tensor<2x9x3x2x2xf64>, %b: tensor<2x9x6xf64>, %h0: tensor<2x6xf64>) -> (tensor<2x9x6xf64>, tensor<2x6xf64>) {
  %e = tensor.empty() : tensor<2x9x6xf64>
  %l = tensor.empty() : tensor<2x6xf64>
  %h, %last = recurrence.scan block_diagonal<2> transition(%a : tensor<2x9x3x2x2xf64>) input(%b : tensor<2x9x6xf64>) init(%h0 : tensor<2x6xf64>) outs(%e, %l : tensor<2x9x6xf64>, tensor<2x6xf64>) -> tensor<2x9x6xf64>, tensor<2x6xf64>
  return %h, %last : tensor<2x9x6xf64>, tensor<2x6xf64>
}

// CHECK-LABEL: llvm.func @dplr_grad_grad(
// CHECK-NOT: llvm.call @malloc
// CHECK-NOT: llvm.load
// CHECK-NOT: llvm.store
// CHECK: gpu.launch_func
// CHECK-NOT: llvm.load
// CHECK-NOT: llvm.store
// CHECK: llvm.return
// CHECK: gpu.binary @dplr_grad_grad_kernel
func.func @dplr(%d: tensor<2x9x5xf64>, %u: tensor<2x9x5x1xf64>, %v: tensor<2x9x5x1xf64>, %b: tensor<2x9x5xf64>) -> tensor<2x9x5xf64> {
  %e = tensor.empty() : tensor<2x9x5xf64>
  %h = recurrence.scan dplr<1> transition(%d, %u, %v : tensor<2x9x5xf64>, tensor<2x9x5x1xf64>, tensor<2x9x5x1xf64>) input(%b : tensor<2x9x5xf64>) outs(%e : tensor<2x9x5xf64>) -> tensor<2x9x5xf64>
  return %h : tensor<2x9x5xf64>
}

// The gradients that -recurrence-differentiate derives, lowered for the GPU
// by -recurrence-to-nvvm: the adjoint's scans are scan kernels in blocks of
// 32 threads, its elementwise ops and copies are kernels over one flattened
// dim in blocks of 256 threads (consecutive threads on consecutive
// elements), and the host code allocates its intermediates on the device
// and touches no element.
//
// RUN: recurrence-opt %s -recurrence-differentiate -recurrence-to-nvvm | FileCheck %s
// RUN: recurrence-opt %s -recurrence-differentiate -recurrence-to-nvvm | FileCheck %s --check-prefix=HOST
// RUN: recurrence-opt %s -recurrence-differentiate -recurrence-to-nvvm --mlir-print-ir-before=recurrence-gpu-parallelize -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUFFERS

// The diagonal adjoint's full-size work is its two scans and the gate's
// gradient: the states and mu are computed where they are read, without
// padded copies, and no zero fill of a whole tensor precedes the gradient.
// BUFFERS-LABEL: func.func @diagonal_grad(
// BUFFERS-NOT: linalg.copy ins(%{{[^ ]*}} : memref<?x?x?
// BUFFERS-NOT: memref.copy %{{[^ ]*}}, %{{[^ ]*}} : memref<?x?x?
// BUFFERS-NOT: linalg.fill ins(%{{[^ ]*}} : f32) outs(%{{[^ ]*}} : memref<?x?x?
// BUFFERS: linalg.generic
// BUFFERS-NOT: linalg.copy ins(%{{[^ ]*}} : memref<?x?x?
// BUFFERS: return

// CHECK-LABEL: llvm.func @diagonal_grad(
// CHECK-DAG: %[[ELEMENTWISE:.*]] = llvm.mlir.constant(256 : index) : i64
// CHECK-DAG: %[[THREADS:.*]] = llvm.mlir.constant(32 : index) : i64
// CHECK-DAG: %[[ONE:.*]] = llvm.mlir.constant(1 : index) : i64
// CHECK: llvm.call @mgpuMemAlloc
// The states' first step (zeros) is an elementwise kernel: blocks over
// (rows, tiles of the run), 256 threads.
// CHECK: gpu.launch_func @diagonal_grad_kernel::@diagonal_grad_kernel blocks in (%{{.*}}, %{{.*}}, %[[ONE]]) threads in (%[[ELEMENTWISE]], %[[ONE]], %[[ONE]])
// The scans (chunked or sequential, chosen at run time by the lanes):
// (batch, [chunk,] channel block) flattened on the grid, 32 threads.
// CHECK: gpu.launch_func @diagonal_grad_kernel_{{[0-9]+}}::@diagonal_grad_kernel blocks in (%{{.*}}, %[[ONE]], %[[ONE]]) threads in (%[[THREADS]], %[[ONE]], %[[ONE]])
// CHECK: llvm.call @mgpuMemFree
// CHECK: gpu.binary @diagonal_grad_kernel
// CHECK-SAME: .entry diagonal_grad_kernel
// CHECK-LABEL: llvm.func @blocks_grad(
// CHECK: gpu.launch_func
// CHECK-LABEL: llvm.func @attention_grad(
// CHECK: gpu.launch_func

// No host function reads or writes a float, mallocs or copies memory.
// HOST-NOT: llvm.call @malloc
// HOST-NOT: llvm.call @memrefCopy
// HOST-LABEL: llvm.func @diagonal_grad(
// HOST-NOT: {{llvm.load .* -> f32|llvm.store .* : f32, }}
// HOST: gpu.binary
// HOST-LABEL: llvm.func @blocks_grad(
// HOST-NOT: {{llvm.load .* -> f32|llvm.store .* : f32, }}
// HOST: gpu.binary
// HOST-LABEL: llvm.func @attention_grad(
// HOST-NOT: {{llvm.load .* -> f32|llvm.store .* : f32, }}
// HOST: gpu.binary

func.func @diagonal(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
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

// Reversed, with init and the final state: dinit and the projection of the
// blocks' cotangents.
func.func @blocks(%a: tensor<?x?x?x4x4xf32>, %b: tensor<?x?x?xf32>, %h0: tensor<?x?xf32>) -> (tensor<?x?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %d3 = tensor.dim %b, %c0 : tensor<?x?x?xf32>
  %c1 = arith.constant 1 : index
  %d4 = tensor.dim %b, %c1 : tensor<?x?x?xf32>
  %c2 = arith.constant 2 : index
  %d5 = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %h_dest = tensor.empty(%d3, %d4, %d5) : tensor<?x?x?xf32>
  %d6 = tensor.dim %h0, %c0 : tensor<?x?xf32>
  %d7 = tensor.dim %h0, %c1 : tensor<?x?xf32>
  %last_dest = tensor.empty(%d6, %d7) : tensor<?x?xf32>
  %h, %last = recurrence.scan block_diagonal<4> reverse transition(%a : tensor<?x?x?x4x4xf32>) input(%b : tensor<?x?x?xf32>) init(%h0 : tensor<?x?xf32>) outs(%h_dest, %last_dest : tensor<?x?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>, tensor<?x?xf32>
  return %h, %last : tensor<?x?x?xf32>, tensor<?x?xf32>
}

// Linear attention: a matrix state with a factored input and a readout.
func.func @attention(%k: tensor<?x?x?xf32>, %v: tensor<?x?x?xf32>, %q: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %d8 = tensor.dim %k, %c0 : tensor<?x?x?xf32>
  %c1 = arith.constant 1 : index
  %d9 = tensor.dim %k, %c1 : tensor<?x?x?xf32>
  %c2 = arith.constant 2 : index
  %d10 = tensor.dim %v, %c2 : tensor<?x?x?xf32>
  %y_dest = tensor.empty(%d8, %d9, %d10) : tensor<?x?x?xf32>
  %y = recurrence.scan identity matrix factored_input(%k, %v : tensor<?x?x?xf32>, tensor<?x?x?xf32>) readout(%q : tensor<?x?x?xf32>) outs(%y_dest : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %y : tensor<?x?x?xf32>
}

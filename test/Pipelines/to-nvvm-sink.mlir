// -recurrence-to-nvvm sinks constants and index computations into the
// kernels (gpu-launch-sink-index-computations) before outlining them: a
// kernel's arguments are its buffers and the run-time sizes it needs, and
// its constants (the zero index of a thread's 1 x 1 state, the chunk size)
// are constants in the kernel, where LLVM folds them and keeps the thread's
// stack buffers in registers.
//
// RUN: recurrence-opt %s -recurrence-to-nvvm -mlir-disable-threading -mlir-print-ir-after=gpu-kernel-outlining 2>&1 >/dev/null | FileCheck %s
// RUN: recurrence-opt %s -recurrence-to-nvvm -mlir-disable-threading -mlir-print-ir-after=gpu-kernel-outlining 2>&1 >/dev/null | grep gpu.launch_func | FileCheck %s --check-prefix=ARGS

// The three phases' kernels, none of them given a constant.
// ARGS-NOT: %c{{[0-9_]+}} : index
// ARGS: gpu.launch_func
// ARGS-NOT: %c{{[0-9_]+}} : index
// ARGS: gpu.launch_func
// ARGS-NOT: %c{{[0-9_]+}} : index
// ARGS: gpu.launch_func
// ARGS-NOT: %c{{[0-9_]+}} : index

// CHECK-LABEL: gpu.func @diagonal_kernel(
// CHECK-DAG: arith.constant 0 : index
// CHECK-DAG: arith.constant 64 : index
// CHECK: gpu.return

func.func @diagonal(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %b, %c0 : tensor<?x?x?xf32>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %b, %c1 : tensor<?x?x?xf32>
  %c2 = arith.constant 2 : index
  %d2 = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %h_dest = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %h = recurrence.scan diagonal schedule chunked<64> transition(%a : tensor<?x?x?xf32>) input(%b : tensor<?x?x?xf32>) outs(%h_dest : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %h : tensor<?x?x?xf32>
}

// The Blelloch scan schedule on the GPU: a kernel writing each step's pair
// (A_t, b_t), one folding init into the first, then for each sweep a host
// loop over its levels that launches one kernel per level (a thread per
// combine), then kernels writing the outputs and the final state. The host
// code only launches; every pass over the data is a kernel. The gradient
// of a scan-scheduled scan (its adjoint's scans take the same schedule)
// lowers likewise, at a dynamic T too, where the final state's kernel
// yields init's row through a branch of its own.
//
// RUN: recurrence-opt %s -recurrence-to-nvvm | FileCheck %s
// RUN: recurrence-opt %s -recurrence-to-nvvm | FileCheck %s --check-prefix=HOST
// RUN: recurrence-opt %s -recurrence-differentiate="functions=diagonal" -recurrence-to-nvvm | FileCheck %s --check-prefix=GRAD
// RUN: not recurrence-opt %s -recurrence-select-schedule="target=cuda schedules=sequential,fast" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: recurrence-opt %s -recurrence-select-schedule="target=cuda schedules=scan,sequential" | FileCheck %s --check-prefix=KEPT

// CHECK-LABEL: llvm.func @diagonal(
// CHECK:         gpu.launch_func @diagonal_kernel::@diagonal_kernel
// CHECK:         gpu.launch_func @diagonal_kernel_0::@diagonal_kernel
// The up-sweep: a kernel per level.
// CHECK:       ^[[UP:bb[0-9]+]](%{{.*}}: i64):
// CHECK:         llvm.cond_br
// CHECK:         gpu.launch_func @diagonal_kernel_1::@diagonal_kernel
// CHECK:         llvm.br ^[[UP]](
// The down-sweep: a kernel per level.
// CHECK:       ^[[DOWN:bb[0-9]+]](%{{.*}}: i64):
// CHECK:         llvm.cond_br
// CHECK:         gpu.launch_func @[[DOWN_KERNEL:diagonal_kernel_[0-9]+]]::@diagonal_kernel
// CHECK:         llvm.br ^[[DOWN]](
// The outputs, then the final state.
// CHECK:         gpu.launch_func @{{diagonal_kernel_[0-9]+}}::@diagonal_kernel
// CHECK:         gpu.launch_func @{{diagonal_kernel_[0-9]+}}::@diagonal_kernel
// CHECK-NOT:     gpu.launch_func
// CHECK:         llvm.return
// CHECK:       gpu.binary @diagonal_kernel

// No host allocation of data anywhere in the function.
// HOST-LABEL: llvm.func @diagonal(
// HOST-NOT:     llvm.call @malloc
// HOST:         llvm.return

// The gradient's scans (the states recomputed, then the adjoint's reverse
// scan) run by levels too: four host loops, each launching a kernel.
// GRAD-LABEL: llvm.func @diagonal_grad(
// GRAD:       ^[[L1:bb[0-9]+]](%{{.*}}: i64):
// GRAD:         gpu.launch_func
// GRAD:         llvm.br ^[[L1]](
// GRAD:       ^[[L2:bb[0-9]+]](%{{.*}}: i64):
// GRAD:         gpu.launch_func
// GRAD:         llvm.br ^[[L2]](
// GRAD:       ^[[L3:bb[0-9]+]](%{{.*}}: i64):
// GRAD:         gpu.launch_func
// GRAD:         llvm.br ^[[L3]](
// GRAD:       ^[[L4:bb[0-9]+]](%{{.*}}: i64):
// GRAD:         gpu.launch_func
// GRAD:         llvm.br ^[[L4]](
// GRAD:         llvm.return
// GRAD:       gpu.binary @diagonal_grad_kernel

// UNKNOWN: error: unknown schedule 'fast' in `schedules`; expected sequential, chunked or scan
// KEPT-LABEL: func.func @diagonal(
// KEPT: schedule scan
func.func @diagonal(%a: tensor<2x?x8xf32>, %b: tensor<2x?x8xf32>, %h0: tensor<2x8xf32>) -> (tensor<2x?x8xf32>, tensor<2x8xf32>) {
  %c1 = arith.constant 1 : index
  %t = tensor.dim %a, %c1 : tensor<2x?x8xf32>
  %e = tensor.empty(%t) : tensor<2x?x8xf32>
  %l = tensor.empty() : tensor<2x8xf32>
  %h, %last = recurrence.scan diagonal schedule scan transition(%a : tensor<2x?x8xf32>) input(%b : tensor<2x?x8xf32>) init(%h0 : tensor<2x8xf32>) outs(%e, %l : tensor<2x?x8xf32>, tensor<2x8xf32>) -> tensor<2x?x8xf32>, tensor<2x8xf32>
  return %h, %last : tensor<2x?x8xf32>, tensor<2x8xf32>
}

// The gradient that reads the states from the forward's output
// (-recurrence-differentiate=results=true), called the way the JIT's
// destination-passing wrapper calls it, lowered for the GPU: two kernels
// touch whole arrays, the adjoint's reverse scan, which writes mu straight
// into the caller's buffer for b's gradient (its canonical [B, T, N, 1]
// form is that buffer expanded: no temporary mu, no copy), and the
// transitions' gradient mu_t h_{t-1}. The others touch a step or two: mu's
// last step, the state before the first step (zeros), and step 0's
// gradient, written into a's gradient itself (no whole-sized temporary
// and no copy of it). No forward scan is recomputed.
//
// RUN: recurrence-opt %s -recurrence-differentiate=results=true -recurrence-to-nvvm -mlir-disable-threading -mlir-print-ir-after=recurrence-gpu-loads-in-flight 2>&1 >/dev/null | FileCheck %s
// RUN: recurrence-opt %s -recurrence-differentiate=results=true -recurrence-to-nvvm -mlir-disable-threading -mlir-print-ir-after=recurrence-gpu-loads-in-flight 2>&1 >/dev/null | FileCheck %s --check-prefix=WHOLE
// RUN: recurrence-opt %s -recurrence-differentiate=results=true -recurrence-to-llvm -mlir-disable-threading -mlir-print-ir-after=recurrence-bufferize 2>&1 >/dev/null | FileCheck %s --check-prefix=CPU

// No buffer of the whole shape anywhere, on the GPU or the CPU.
// WHOLE-LABEL: func.func @wrapper(
// WHOLE-NOT: gpu.alloc async [%{{.*}}] () : memref<4x64x32{{(x1)?}}xf32>
// WHOLE: return
// CPU-LABEL: func.func @wrapper(
// CPU-NOT: memref.alloc() {{.*}}: memref<4x64x32{{(x1)?}}xf32>
// CPU: return

// CHECK-LABEL: func.func @wrapper(
// CHECK-NOT: gpu.alloc async [%{{.*}}] () : memref<4x64x32{{(x1)?}}xf32>
// CHECK-COUNT-5: gpu.launch blocks
// CHECK-NOT: gpu.launch blocks
// CHECK-NOT: gpu.alloc async [%{{.*}}] () : memref<4x64x32{{(x1)?}}xf32>
// CHECK: return
func.func private @diagonal(%a: tensor<4x64x32xf32>, %b: tensor<4x64x32xf32>) -> tensor<4x64x32xf32> {
  %dest = tensor.empty() : tensor<4x64x32xf32>
  %h = recurrence.scan diagonal transition(%a : tensor<4x64x32xf32>) input(%b : tensor<4x64x32xf32>) outs(%dest : tensor<4x64x32xf32>) -> tensor<4x64x32xf32>
  return %h : tensor<4x64x32xf32>
}
func.func private @diagonal_grad(tensor<4x64x32xf32>, tensor<4x64x32xf32>, tensor<4x64x32xf32>, tensor<4x64x32xf32>) -> (tensor<4x64x32xf32>, tensor<4x64x32xf32>)
func.func @wrapper(%a: memref<4x64x32xf32>, %b: memref<4x64x32xf32>, %h: memref<4x64x32xf32>, %g: memref<4x64x32xf32>, %da: memref<4x64x32xf32>, %db: memref<4x64x32xf32>) {
  %ta = bufferization.to_tensor %a restrict : memref<4x64x32xf32> to tensor<4x64x32xf32>
  %tb = bufferization.to_tensor %b restrict : memref<4x64x32xf32> to tensor<4x64x32xf32>
  %th = bufferization.to_tensor %h restrict : memref<4x64x32xf32> to tensor<4x64x32xf32>
  %tg = bufferization.to_tensor %g restrict : memref<4x64x32xf32> to tensor<4x64x32xf32>
  %r:2 = func.call @diagonal_grad(%ta, %tb, %th, %tg) : (tensor<4x64x32xf32>, tensor<4x64x32xf32>, tensor<4x64x32xf32>, tensor<4x64x32xf32>) -> (tensor<4x64x32xf32>, tensor<4x64x32xf32>)
  bufferization.materialize_in_destination %r#0 in restrict writable %da : (tensor<4x64x32xf32>, memref<4x64x32xf32>) -> ()
  bufferization.materialize_in_destination %r#1 in restrict writable %db : (tensor<4x64x32xf32>, memref<4x64x32xf32>) -> ()
  return
}

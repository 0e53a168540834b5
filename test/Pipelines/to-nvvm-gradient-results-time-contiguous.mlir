// The same gradient on time-contiguous caller buffers (Mamba's [B, N, T]
// passed as [B, T, N] views): the adjoint's reverse scan is a warp scan
// (shuffles), and it writes mu straight into the slice of b's gradient
// that holds it, beside mu's last step: no buffer of its own in the time-
// contiguous order ([B, N, 1, T - 1]) and no kernel copying it over.
//
// RUN: recurrence-opt %s -recurrence-differentiate=results=true -recurrence-to-nvvm -mlir-disable-threading -mlir-print-ir-after=recurrence-gpu-loads-in-flight 2>&1 >/dev/null | FileCheck %s
// RUN: recurrence-opt %s -recurrence-differentiate=results=true -recurrence-to-nvvm -mlir-disable-threading -mlir-print-ir-after=recurrence-gpu-loads-in-flight 2>&1 >/dev/null | FileCheck %s --check-prefix=WHOLE

// Five kernels: mu's last step, the warp scan, then the state before the
// first step, step 0's gradient and the other steps' gradient, both into
// a's gradient itself (no whole-sized temporary, no copy).
// No buffer of the whole shape anywhere (mu's time-contiguous order
// included).
// WHOLE-LABEL: func.func @wrapper(
// WHOLE-NOT: gpu.alloc async [%{{.*}}] () : memref<{{4x32x1x63|4x64x32(x1)?}}xf32>
// WHOLE: return
// CHECK-LABEL: func.func @wrapper(
// CHECK-NOT: gpu.alloc async [%{{.*}}] () : memref<4x32x1x63xf32>
// CHECK-COUNT-2: gpu.launch blocks
// CHECK: gpu.shuffle
// CHECK-NOT: gpu.alloc async [%{{.*}}] () : memref<4x32x1x63xf32>
// CHECK-COUNT-3: gpu.launch blocks
// CHECK-NOT: gpu.launch blocks
// CHECK: return
#tc = strided<[2048, 1, 64]>
func.func private @diagonal(%a: tensor<4x64x32xf32>, %b: tensor<4x64x32xf32>) -> tensor<4x64x32xf32> {
  %dest = tensor.empty() : tensor<4x64x32xf32>
  %h = recurrence.scan diagonal transition(%a : tensor<4x64x32xf32>) input(%b : tensor<4x64x32xf32>) outs(%dest : tensor<4x64x32xf32>) -> tensor<4x64x32xf32>
  return %h : tensor<4x64x32xf32>
}
func.func private @diagonal_grad(tensor<4x64x32xf32>, tensor<4x64x32xf32>, tensor<4x64x32xf32>, tensor<4x64x32xf32>) -> (tensor<4x64x32xf32>, tensor<4x64x32xf32>)
func.func @wrapper(%a: memref<4x64x32xf32, #tc>, %b: memref<4x64x32xf32, #tc>, %h: memref<4x64x32xf32, #tc>, %g: memref<4x64x32xf32, #tc>, %da: memref<4x64x32xf32, #tc>, %db: memref<4x64x32xf32, #tc>) {
  %ta = bufferization.to_tensor %a restrict : memref<4x64x32xf32, #tc> to tensor<4x64x32xf32>
  %tb = bufferization.to_tensor %b restrict : memref<4x64x32xf32, #tc> to tensor<4x64x32xf32>
  %th = bufferization.to_tensor %h restrict : memref<4x64x32xf32, #tc> to tensor<4x64x32xf32>
  %tg = bufferization.to_tensor %g restrict : memref<4x64x32xf32, #tc> to tensor<4x64x32xf32>
  %r:2 = func.call @diagonal_grad(%ta, %tb, %th, %tg) : (tensor<4x64x32xf32>, tensor<4x64x32xf32>, tensor<4x64x32xf32>, tensor<4x64x32xf32>) -> (tensor<4x64x32xf32>, tensor<4x64x32xf32>)
  bufferization.materialize_in_destination %r#0 in restrict writable %da : (tensor<4x64x32xf32>, memref<4x64x32xf32, #tc>) -> ()
  bufferization.materialize_in_destination %r#1 in restrict writable %db : (tensor<4x64x32xf32>, memref<4x64x32xf32, #tc>) -> ()
  return
}
